/**
 * API throughput: requests/s and latency (p50/p99) of GET /v1/health (public, no database) and
 * GET /v1/transcriptions/{id}/status (API key authentication + one PostgreSQL read) with autocannon over loopback.
 *
 *   npm run bench:api
 *   node dist-bench/bench/api-load.js [--seconds 10] [--connections 50]
 *
 * A throwaway service: one ROLE=api process (rate limits set far out of reach) and, only to finish the
 * transcription whose status is polled, one ROLE=worker process that is stopped before the load runs.
 * autocannon runs in this process, so on a 2-core machine the load generator and the server share the cores.
 * Target: status ≥ 40 % of health requests/s.
 */
import autocannon from 'autocannon';
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
import { withSandbox } from './lib/sandbox';
import { transcribeThroughService } from './lib/service-client';

interface LoadRow {
  route: string;
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
  non2xx: number;
  errors: number;
  apiRssAfterMb: number;
  load: string;
}

async function main(): Promise<void> {
  const duration = numberArgument('--seconds', 10);
  const connections = numberArgument('--connections', 50);
  const machine = machineInfo();
  const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
  const rows = await withSandbox({ LOG_LEVEL: 'warn' }, async (sandbox) => {
    const api = await sandbox.start('api');
    const worker = await sandbox.start('worker');
    const target = { baseUrl: api.url as string, apiKey: sandbox.apiKey };
    const { transcription } = await transcribeThroughService(target, clipBatch(1)[0].path);
    await worker.stop();
    const routes = [
      { route: 'GET /v1/health', path: '/v1/health', headers: {} },
      {
        route: 'GET /v1/transcriptions/{id}/status',
        path: `/v1/transcriptions/${transcription.id}/status`,
        headers: { authorization: `Bearer ${sandbox.apiKey}` },
      },
    ];
    const measured: LoadRow[] = [];
    for (const route of routes) {
      // A short warm-up (JIT, connection pools), then the measured run.
      await autocannon({
        url: `${target.baseUrl}${route.path}`,
        headers: route.headers,
        connections,
        duration: 2,
      });
      const load = loadAverage();
      const result = await autocannon({
        url: `${target.baseUrl}${route.path}`,
        headers: route.headers,
        connections,
        duration,
      });
      const row: LoadRow = {
        route: route.route,
        requestsPerSecond: result.requests.average,
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        max: result.latency.max,
        total: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        apiRssAfterMb: processMemory(api.pid)?.rssMb ?? NaN,
        load,
      };
      console.error(`[api-load] ${JSON.stringify(row)}`);
      measured.push(row);
    }
    return measured;
  });
  const [health, status] = rows;
  const ratio = status.requestsPerSecond / health.requestsPerSecond;
  const table = markdownTable(
    [
      'route',
      'req/s (mean)',
      'p50 (ms)',
      'p90 (ms)',
      'p99 (ms)',
      'max (ms)',
      'requests',
      'non-2xx',
      'errors',
      'load avg (1/5/15)',
    ],
    rows.map((row) => [
      row.route,
      fixed(row.requestsPerSecond, 0),
      fixed(row.p50, 0),
      fixed(row.p90, 0),
      fixed(row.p99, 0),
      fixed(row.max, 0),
      String(row.total),
      String(row.non2xx),
      String(row.errors),
      row.load,
    ]),
  );
  publish(
    'api-load',
    `${table}\n\nautocannon 8.0.0, ${connections} connections, ${duration} s per route after a 2 s warm-up, loopback, ` +
      `generator in the same machine. Status / health = **${fixed(ratio * 100, 0)} %** (target ≥ 40 %). ` +
      `Machine: ${machine.cpus} × ${machine.cpuModel}; load average before ${loadAtStart}.`,
    { rows, ratio, connections, duration, loadAtStart },
  );
}

runMain(main);
