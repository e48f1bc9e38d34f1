/**
 * API hot path (issue 36, item 6): an authenticated GET /v1/transcriptions/{id}/status against Express's hello
 * world on the same machine in one run, and what each piece of the service's HTTP pipeline costs, each switched
 * off in turn (bench/lib/switch-off.ts) with the others on.
 *
 *   npm run bench:api
 *   node dist-bench/bench/api-load.js [--seconds 10] [--connections 50] [--rounds 2]
 *
 * A throwaway service: one ROLE=api process at a time (rate limits set far out of reach, so every request is
 * counted and none refused) and, only to finish the transcription whose status is polled, one ROLE=worker process
 * stopped before the load runs. "All on" is the service as deployed: the access log (LOG_LEVEL=log, one JSON line
 * per request, here into a file), metrics, rate limits and the API key's request log. autocannon runs in this
 * process, so on a 2-core machine the load generator, the server, PostgreSQL and Redis share the cores.
 * Each round measures every variant once, bare Express first and last; the table gives each variant's mean over
 * the rounds. Target: status (all on) ≥ 60 % of bare Express.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clipBatch } from './lib/bench-audio';
import {
  fixed,
  loadAverage,
  machineInfo,
  markdownTable,
  numberArgument,
  processMemory,
  publish,
  quietWaitMs,
  runMain,
  waitForQuietMachine,
} from './lib/measure';
import { withSandbox, type Sandbox, type ServiceProcessHandle } from './lib/sandbox';
import { transcribeThroughService } from './lib/service-client';

interface Variant {
  name: string;
  /** The service's environment for this variant, or null for bare Express. */
  env: Record<string, string> | null;
  path: 'status' | 'health' | 'bare';
}

const VARIANTS: Variant[] = [
  { name: 'bare Express hello world', env: null, path: 'bare' },
  { name: 'status, all on', env: {}, path: 'status' },
  { name: 'status, access log off (LOG_LEVEL=warn)', env: { LOG_LEVEL: 'warn' }, path: 'status' },
  { name: 'status, metrics off', env: { BENCH_SWITCH_OFF: 'metrics' }, path: 'status' },
  { name: 'status, rate limits off', env: { BENCH_SWITCH_OFF: 'rate-limits' }, path: 'status' },
  { name: "status, API key's request log off", env: { BENCH_SWITCH_OFF: 'key-request-log' }, path: 'status' },
  {
    name: 'status, hot reads unprepared (parsed and planned per call)',
    env: { BENCH_SWITCH_OFF: 'prepared-reads' },
    path: 'status',
  },
  {
    // --max-semi-space-size=0 is V8's own default (sized from the machine's memory), and any such flag leaves the
    // young generation to the operator (src/common/lifecycle/young-generation.ts): the service before it held it.
    name: 'status, young generation left to grow (NODE_OPTIONS=--max-semi-space-size=0)',
    env: { NODE_OPTIONS: '--max-semi-space-size=0' },
    path: 'status',
  },
  { name: 'GET /v1/health (no credential, no database), all on', env: {}, path: 'health' },
];

/** Where the machine's CPU time went while one sample ran, in µs per request. */
interface CpuPerRequest {
  server: number;
  postgres: number;
  redis: number;
  loadGenerator: number;
}

interface Sample {
  variant: string;
  cpu: CpuPerRequest;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  load: string;
  /** The server process's peak resident memory (VmHWM) when the sample ended, MB. */
  serverPeakRssMb: number;
}

async function startBareExpress(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(__dirname, 'lib', 'bare-express.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare Express exited (${code})`)));
    child.stdout?.once('data', (data: Buffer) => resolve(String(data).trim()));
  });
  return { url: `http://127.0.0.1:${port}/`, child };
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system) of a process in seconds from /proc/<pid>/stat, 0 when it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Processes by command name (postgres backends, redis-server). */
function pidsNamed(name: string): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      return fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

function cpuSnapshot(serverPid: number): CpuPerRequest {
  const sum = (pids: number[]): number => pids.reduce((total, pid) => total + cpuSeconds(pid), 0);
  return {
    server: cpuSeconds(serverPid),
    postgres: sum(pidsNamed('postgres')),
    redis: sum(pidsNamed('redis-server')),
    loadGenerator: cpuSeconds(process.pid),
  };
}

async function measure(
  serverPid: number,
  url: string,
  headers: Record<string, string>,
  connections: number,
  duration: number,
): Promise<Omit<Sample, 'variant'>> {
  // A short warm-up (JIT, connection pools), then the measured run.
  await autocannon({ url, headers, connections, duration: 2 });
  const load = loadAverage();
  const before = cpuSnapshot(serverPid);
  const result = await autocannon({ url, headers, connections, duration });
  const after = cpuSnapshot(serverPid);
  const perRequest = (part: keyof CpuPerRequest): number =>
    ((after[part] - before[part]) * 1e6) / Math.max(1, result.requests.total);
  return {
    cpu: {
      server: perRequest('server'),
      postgres: perRequest('postgres'),
      redis: perRequest('redis'),
      loadGenerator: perRequest('loadGenerator'),
    },
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    load,
    serverPeakRssMb: processMemory(serverPid)?.hwmMb ?? 0,
  };
}

async function measureVariant(
  sandbox: Sandbox,
  variant: Variant,
  statusPath: string,
  connections: number,
  duration: number,
): Promise<Sample> {
  if (variant.env === null) {
    const bare = await startBareExpress();
    try {
      const pid = bare.child.pid as number;
      return { variant: variant.name, ...(await measure(pid, bare.url, {}, connections, duration)) };
    } finally {
      bare.child.kill();
    }
  }
  const api: ServiceProcessHandle = await sandbox.start('api', variant.env, [
    '--require',
    path.join(__dirname, 'lib', 'switch-off.js'),
  ]);
  try {
    const url = `${api.url}${variant.path === 'health' ? '/v1/health' : statusPath}`;
    const headers: Record<string, string> =
      variant.path === 'health' ? {} : { authorization: `Bearer ${sandbox.apiKey}` };
    return { variant: variant.name, ...(await measure(api.pid, url, headers, connections, duration)) };
  } finally {
    await api.stop();
  }
}

async function main(): Promise<void> {
  const duration = numberArgument('--seconds', 10);
  const connections = numberArgument('--connections', 50);
  const rounds = numberArgument('--rounds', 2);
  const machine = machineInfo();
  const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
  const samples = await withSandbox({ LOG_LEVEL: 'log' }, async (sandbox) => {
    const api = await sandbox.start('api');
    const worker = await sandbox.start('worker');
    const { transcription } = await transcribeThroughService(
      { baseUrl: api.url as string, apiKey: sandbox.apiKey },
      clipBatch(1)[0].path,
    );
    await worker.stop();
    await api.stop();
    const statusPath = `/v1/transcriptions/${transcription.id}/status`;
    const measured: Sample[] = [];
    for (let round = 0; round < rounds; round += 1) {
      // Bare Express opens and closes each round, so drift over the round shows in its two figures.
      for (const variant of [...VARIANTS, VARIANTS[0]]) {
        const sample = await measureVariant(sandbox, variant, statusPath, connections, duration);
        console.error(`[api-load] round ${round + 1} ${JSON.stringify(sample)}`);
        measured.push(sample);
      }
    }
    return measured;
  });
  const mean = (name: string): number => {
    const of = samples.filter((sample) => sample.variant === name);
    return of.reduce((sum, sample) => sum + sample.requestsPerSecond, 0) / of.length;
  };
  const bare = mean(VARIANTS[0].name);
  const allOn = mean(VARIANTS[1].name);
  const rows = VARIANTS.map((variant) => {
    const of = samples.filter((sample) => sample.variant === variant.name);
    const rps = mean(variant.name);
    return [
      variant.name,
      of.map((sample) => fixed(sample.requestsPerSecond, 0)).join(' / '),
      fixed(rps, 0),
      `${fixed((rps / bare) * 100, 1)} %`,
      variant.path === 'status' && variant.name !== VARIANTS[1].name
        ? `${fixed((1 / allOn - 1 / rps) * 1e6, 0)} µs`
        : '',
      (['server', 'postgres', 'redis', 'loadGenerator'] as const)
        .map((part) => fixed(of.reduce((sum, sample) => sum + sample.cpu[part], 0) / of.length, 0))
        .join(' / '),
      of.map((sample) => `${fixed(sample.p50, 0)}/${fixed(sample.p99, 0)}`).join(' · '),
      of.map((sample) => fixed(sample.serverPeakRssMb, 0)).join(' / '),
      String(of.reduce((sum, sample) => sum + sample.non2xx + sample.errors, 0)),
      of.map((sample) => sample.load.split(' / ')[0]).join(' · '),
    ];
  });
  const table = markdownTable(
    [
      'variant',
      'req/s per sample',
      'req/s (mean)',
      'of bare Express',
      'cost of the piece (per request, whole machine)',
      'CPU µs per request: server / PostgreSQL / Redis / autocannon',
      'p50/p99 ms',
      'server peak RSS (MB)',
      'non-2xx + errors',
      'load (1 min) per sample',
    ],
    rows,
  );
  publish(
    'api-load',
    `${table}\n\nautocannon 8.0.0, ${connections} connections, ${duration} s per sample after a 2 s warm-up, ` +
      `${rounds} rounds, loopback, generator in the same machine. Status (all on) / bare Express = ` +
      `**${fixed((allOn / bare) * 100, 1)} %** (target ≥ 60 %). A piece's cost is 1/(req/s all on) − ` +
      `1/(req/s without it): the machine's time per request it adds. Machine: ${machine.cpus} × ` +
      `${machine.cpuModel}; load average before ${loadAtStart}.`,
    { samples, ratio: allOn / bare, connections, duration, rounds, loadAtStart },
  );
}

runMain(main);
