/**
 * Fair share of the workers (MAX_ACTIVE_JOBS_PER_WORKSPACE): workspace A queues a backlog of short jobs, then
 * workspace B queues one; how long does B's job wait for a worker, compared with the length of one job?
 *
 *   npm run bench:fair-share
 *   node dist-bench/bench/fair-share.js [--jobs 50] [--concurrency 2] [--caps 1000,2,1]
 *
 * One throwaway service per cap (bench/lib/sandbox.ts: one ROLE=all process, WORKER_CONCURRENCY=--concurrency).
 * A's jobs are the 2.8 s clip test/fixtures/audio/pocketsphinx/goforward.wav, uploaded one after another; B's
 * job is the same clip, uploaded right after A's last. Everything is read from the records' server-side times:
 * B's wait = started_at − created_on of B's job; one job's length = the median started_at → completed_at of A's
 * jobs; "A's jobs started first" = how many of A's jobs started before B's. With a cap of 1000 every job goes to
 * the worker queue at once and only the place in the Bull priority keeps B's job ahead of A's backlog. The run for
 * a cap ends when B's job has finished (A's remaining backlog is dropped with the sandbox). For the release before
 * fair share, run this script from a checkout of it (the variable is then ignored: first in, first out).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  argument,
  fixed,
  loadAverage,
  machineInfo,
  markdownTable,
  median,
  numberArgument,
  publish,
  quietWaitMs,
  runMain,
  waitForQuietMachine,
} from './lib/measure';
import { ROOT, sleep, withSandbox, type Sandbox } from './lib/sandbox';

const CLIP = path.join(ROOT, 'test', 'fixtures', 'audio', 'pocketsphinx', 'goforward.wav');

interface FairShareRow {
  cap: number;
  concurrency: number;
  backlog: number;
  bWaitSeconds: number;
  jobSeconds: number;
  bWaitInJobs: number;
  aStartedBeforeB: number;
  load: string;
}

async function upload(baseUrl: string, apiKey: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(CLIP)]), path.basename(CLIP));
  const response = await fetch(`${baseUrl}/v1/transcriptions`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  if (response.status !== 202) throw new Error(`upload: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

/** A second workspace (the sandbox's own is A) and its API key, through the operator CLI. */
async function secondWorkspace(sandbox: Sandbox): Promise<string> {
  const output = await sandbox.cli([
    'workspace:create',
    '--name',
    'Bench B',
    '--balance',
    '1000',
    '--free',
    '0',
  ]);
  const match = /"apiKey"\s*:\s*"([^"]+)"/.exec(output);
  if (!match) throw new Error(`workspace:create printed no apiKey: ${output}`);
  return match[1];
}

async function runOnce(cap: number, concurrency: number, backlog: number): Promise<FairShareRow> {
  return withSandbox({ MAX_ACTIVE_JOBS_PER_WORKSPACE: String(cap) }, async (sandbox) => {
    const service = await sandbox.start('all', { WORKER_CONCURRENCY: String(concurrency) });
    const baseUrl = service.url as string;
    const bApiKey = await secondWorkspace(sandbox);
    const load = loadAverage();
    const aIds: string[] = [];
    for (let index = 0; index < backlog; index++) aIds.push(await upload(baseUrl, sandbox.apiKey));
    const bId = await upload(baseUrl, bApiKey);
    const deadline = Date.now() + 60 * 60 * 1000;
    for (;;) {
      const [b] = await sandbox.query<{ status: string }>(`SELECT status FROM transcriptions WHERE id = $1`, [
        bId,
      ]);
      if (b.status === 'completed' || b.status === 'failed') break;
      if (Date.now() > deadline) throw new Error(`cap ${cap}: B's job did not finish within an hour`);
      await sleep(250);
    }
    const [b] = await sandbox.query<{ status: string; wait: number; started: Date }>(
      `SELECT status, EXTRACT(EPOCH FROM started_at - created_on)::float8 AS wait, started_at AS started
         FROM transcriptions WHERE id = $1`,
      [bId],
    );
    if (b.status !== 'completed') throw new Error(`cap ${cap}: B's job ${b.status}`);
    const aJobs = await sandbox.query<{ length: number | null; started: Date | null }>(
      `SELECT EXTRACT(EPOCH FROM completed_at - started_at)::float8 AS length, started_at AS started
         FROM transcriptions WHERE id = ANY($1)`,
      [aIds],
    );
    const lengths = aJobs.flatMap((job) => (job.length === null ? [] : [job.length]));
    const jobSeconds = median(lengths);
    return {
      cap,
      concurrency,
      backlog,
      bWaitSeconds: b.wait,
      jobSeconds,
      bWaitInJobs: b.wait / jobSeconds,
      aStartedBeforeB: aJobs.filter((job) => job.started !== null && job.started < b.started).length,
      load,
    };
  });
}

async function main(): Promise<void> {
  const backlog = numberArgument('--jobs', 50);
  const concurrency = numberArgument('--concurrency', 2);
  const caps = (argument('--caps') ?? '1000,2,1').split(',').map(Number);
  const machine = machineInfo();
  const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
  const rows: FairShareRow[] = [];
  for (const cap of caps) {
    console.error(`[fair-share] MAX_ACTIVE_JOBS_PER_WORKSPACE=${cap}, WORKER_CONCURRENCY=${concurrency}`);
    const row = await runOnce(cap, concurrency, backlog);
    console.error(`[fair-share] ${JSON.stringify(row)}`);
    rows.push(row);
  }
  const table = markdownTable(
    [
      'MAX_ACTIVE_JOBS_PER_WORKSPACE',
      'WORKER_CONCURRENCY',
      "A's backlog",
      "A's jobs started before B's",
      "B's wait (s)",
      'one job (median s)',
      "B's wait in job lengths",
      'load avg at start (1/5/15)',
    ],
    rows.map((row) => [
      String(row.cap),
      String(row.concurrency),
      String(row.backlog),
      String(row.aStartedBeforeB),
      fixed(row.bWaitSeconds, 1),
      fixed(row.jobSeconds, 2),
      fixed(row.bWaitInJobs, 2),
      row.load,
    ]),
  );
  publish(
    'fair-share',
    `${table}\n\nMachine: ${machine.cpus} × ${machine.cpuModel}; load average before the first run ${loadAtStart}.`,
    { rows, loadAtStart },
  );
}

runMain(main);
