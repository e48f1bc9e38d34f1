/**
 * Preloaded into a benchmark's API process (`node --require dist-bench/bench/lib/switch-off.js dist/main.js`) to
 * switch one piece of the HTTP pipeline off, so bench/api-load.ts can report what each piece costs in one run.
 * BENCH_SWITCH_OFF names the piece; the service itself has no such setting (each piece is part of the contract:
 * x-ratelimit-* headers, GET /metrics, an API key's request log). The patch replaces the piece's entry point by a
 * pass-through in the same compiled module the service then loads (the module cache holds one copy per path).
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';

type Next = () => void;
const dist = path.dirname(process.argv[1] ?? '');
// The service's own module cache: a module loaded here is the one the service then gets.
const requireFromService = createRequire(path.join(dist, 'main.js'));
const load = (file: string): Record<string, { prototype: Record<string, unknown> }> =>
  requireFromService(`./${file}`) as Record<string, { prototype: Record<string, unknown> }>;

const SWITCHES: Record<string, () => void> = {
  // Prometheus' request counter and duration histogram (metrics/http-metrics.middleware.ts).
  metrics: () => {
    load('metrics/http-metrics.middleware.js').HttpMetricsMiddleware.prototype.use = (
      _request: unknown,
      _response: unknown,
      next: Next,
    ) => next();
  },
  // The two Redis rate-limit counters and the x-ratelimit-* headers: the answer is that of a Redis outage
  // (RateLimitService.meter fails open with null).
  'rate-limits': () => {
    load('common/http/rate-limit.service.js').RateLimitService.prototype.meter = () => Promise.resolve(null);
  },
  // The API key's request log (GET /v1/api-keys/{id}/requests): buffered rows written in batches.
  'key-request-log': () => {
    load('auth/api-key-request-log.middleware.js').ApiKeyRequestLogMiddleware.prototype.use = (
      _request: unknown,
      _response: unknown,
      next: Next,
    ) => next();
  },
  // The hot reads as prepared statements (common/database/prepared-statement.ts): the same SQL sent unnamed through
  // TypeORM's DataSource.query, so PostgreSQL parses and plans it on every call. The compiled callers read
  // `runPrepared` off the module's exports at each call, so replacing the export reaches them.
  'prepared-reads': () => {
    const prepared = requireFromService('./common/database/prepared-statement.js') as Record<string, unknown>;
    prepared.runPrepared = (
      dataSource: { query: (text: string, values: unknown[]) => Promise<unknown[]> },
      statement: { text: string },
      values: readonly unknown[],
    ) => dataSource.query(statement.text, [...values]);
  },
};

const piece = process.env.BENCH_SWITCH_OFF;
if (piece) {
  const apply = SWITCHES[piece];
  if (!apply) throw new Error(`BENCH_SWITCH_OFF=${piece}: not one of ${Object.keys(SWITCHES).join(', ')}`);
  apply();
}
