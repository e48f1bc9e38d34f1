/**
 * Worker scaling: jobs per minute on a batch of 20 real English clips (../shared/audio, cycled) with one and with
 * two worker processes (ROLE=worker, WORKER_CONCURRENCY=1 each) behind a separate API process (ROLE=api), and for
 * comparison one worker process with WORKER_CONCURRENCY=2.
 *
 *   npm run bench:worker-scaling
 *   node dist-bench/bench/worker-scaling.js [--jobs 20] [--configs 1x1,2x1,1x2]
 *
 * Per configuration (processes × concurrency): the workers are started and ready, then the 20 clips are uploaded
 * at once; the batch time is from the first upload's created_on to the last completed_at (server clocks, from the
 * database). Jobs per minute = jobs / batch minutes; scaling = (jobs/min with 2) / (2 × jobs/min with 1), target ≥ 0.8.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clipBatch } from './lib/bench-audio';
import {
  argument,
  fixed,
  loadAverage,
  machineInfo,
  markdownTable,
  numberArgument,
  publish,
  quietWaitMs,
  runMain,
  waitForQuietMachine,
} from './lib/measure';
import { sleep, withSandbox, type Sandbox, type ServiceProcessHandle } from './lib/sandbox';

interface Config {
  processes: number;
  concurrency: number;
}

interface ScalingRow extends Config {
  jobs: number;
  completed: number;
  failed: number;
  batchSeconds: number;
  jobsPerMinute: number;
  meanJobSeconds: number;
  load: string;
}

async function upload(baseUrl: string, apiKey: string, file: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(file)]), path.basename(file));
  const response = await fetch(`${baseUrl}/v1/transcriptions`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  if (response.status !== 202)
    throw new Error(`upload of ${file}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

async function runBatch(
  sandbox: Sandbox,
  baseUrl: string,
  config: Config,
  jobs: number,
): Promise<ScalingRow> {
  const workers: ServiceProcessHandle[] = [];
  for (let index = 0; index < config.processes; index++) {
    workers.push(await sandbox.start('worker', { WORKER_CONCURRENCY: String(config.concurrency) }));
  }
  const load = loadAverage();
  try {
    const ids = await Promise.all(clipBatch(jobs).map((clip) => upload(baseUrl, sandbox.apiKey, clip.path)));
    const deadline = Date.now() + 30 * 60 * 1000;
    for (;;) {
      const [{ done }] = await sandbox.query<{ done: string }>(
        `SELECT count(*) AS done FROM transcriptions WHERE id = ANY($1) AND status IN ('completed', 'failed')`,
        [ids],
      );
      if (Number(done) === ids.length) break;
      if (Date.now() > deadline) throw new Error(`batch ${JSON.stringify(config)} did not finish in 30 min`);
      await sleep(250);
    }
    const [summary] = await sandbox.query<{
      completed: string;
      failed: string;
      batch: number;
      mean_job: number;
    }>(
      `SELECT count(*) FILTER (WHERE status = 'completed') AS completed,
              count(*) FILTER (WHERE status = 'failed') AS failed,
              EXTRACT(EPOCH FROM max(coalesce(completed_at, failed_at)) - min(created_on))::float8 AS batch,
              avg(EXTRACT(EPOCH FROM coalesce(completed_at, failed_at) - started_at))::float8 AS mean_job
         FROM transcriptions WHERE id = ANY($1)`,
      [ids],
    );
    return {
      ...config,
      jobs,
      completed: Number(summary.completed),
      failed: Number(summary.failed),
      batchSeconds: summary.batch,
      jobsPerMinute: jobs / (summary.batch / 60),
      meanJobSeconds: summary.mean_job,
      load,
    };
  } finally {
    for (const worker of workers) await worker.stop();
  }
}

async function main(): Promise<void> {
  const jobs = numberArgument('--jobs', 20);
  const configs: Config[] = (argument('--configs') ?? '1x1,2x1,1x2').split(',').map((text) => {
    const [processes, concurrency] = text.split('x').map(Number);
    return { processes, concurrency };
  });
  const machine = machineInfo();
  const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
  const rows = await withSandbox({}, async (sandbox) => {
    const api = await sandbox.start('api');
    const measured: ScalingRow[] = [];
    for (const config of configs) {
      console.error(`[worker-scaling] ${config.processes} process(es) × concurrency ${config.concurrency}`);
      const row = await runBatch(sandbox, api.url as string, config, jobs);
      console.error(`[worker-scaling] ${JSON.stringify(row)}`);
      measured.push(row);
    }
    return measured;
  });
  const single = rows.find((row) => row.processes === 1 && row.concurrency === 1);
  const scaling = (row: ScalingRow): number =>
    single ? row.jobsPerMinute / (row.processes * row.concurrency * single.jobsPerMinute) : NaN;
  const table = markdownTable(
    [
      'worker processes × concurrency',
      'jobs (completed/failed)',
      'batch time (s)',
      'jobs/min',
      'mean job processing (s)',
      'vs linear',
      'load avg at start (1/5/15)',
    ],
    rows.map((row) => [
      `${row.processes} × ${row.concurrency}`,
      `${row.jobs} (${row.completed}/${row.failed})`,
      fixed(row.batchSeconds, 1),
      fixed(row.jobsPerMinute, 1),
      fixed(row.meanJobSeconds, 2),
      row === single ? '1 (baseline)' : fixed(scaling(row), 2),
      row.load,
    ]),
  );
  publish(
    'worker-scaling',
    `${table}\n\nMachine: ${machine.cpus} × ${machine.cpuModel}; load average before the first batch ${loadAtStart}.`,
    { rows, loadAtStart },
  );
}

runMain(main);
