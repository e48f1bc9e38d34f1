/**
 * A ~1 MB JSON body of 131,000 unknown three-letter keys used to block the event loop for
 * 12.6 s (POST /v1/vocabularies and /v1/webhooks), quadratic in the key count, in the DTO transformation.
 * Target: while a hostile 1 MB body is processed, GET /v1/health answers in under 200 ms.
 *
 *   npm run bench:hostile-body
 *   node dist-bench/bench/hostile-body.js [--bodies 10] [--skip-baseline]
 *
 * Two measurements in one run:
 * 1. baseline, in this process: the cost the linear check now avoids, i.e. the ValidationPipe (class-transformer
 *    + class-validator) run on the parsed hostile object, for growing key counts;
 * 2. through a throwaway ROLE=api service (`node dist/main.js`): `--bodies` hostile bodies to each endpoint,
 *    sent one after the other, while GET /v1/health is polled every 20 ms; health latency p50/p99/max over
 *    the whole time the hostile bodies are in flight, and the status/time of each refusal.
 */
import { CreateVocabularyDto } from '../src/vocabularies/vocabulary.dto';
import { validationPipe } from '../src/common/http/validation-pipe';
import {
  argument,
  fixed,
  loadAverage,
  markdownTable,
  numberArgument,
  percentile,
  publish,
  runMain,
} from './lib/measure';
import { withSandbox } from './lib/sandbox';

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

function manyKeysBody(count: number): string {
  const members: string[] = [];
  for (let index = 0; index < count; index++) {
    const key =
      LETTERS[Math.floor(index / 2704) % 52] + LETTERS[Math.floor(index / 52) % 52] + LETTERS[index % 52];
    members.push(`"${key}":0`);
  }
  return `{${members.join(',')}}`;
}

async function baseline(keys: number): Promise<number> {
  const started = performance.now();
  await validationPipe()
    .transform(JSON.parse(manyKeysBody(keys)) as unknown, { type: 'body', metatype: CreateVocabularyDto })
    .catch(() => undefined);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const bodies = numberArgument('bodies', 10);
  const loadBefore = loadAverage();
  const baselineRows: string[][] = [];
  const baselineFigures: Record<string, number> = {};
  if (argument('skip-baseline') === undefined) {
    for (const keys of [15_000, 30_000, 60_000, 131_000]) {
      const ms = await baseline(keys);
      baselineFigures[String(keys)] = Math.round(ms);
      baselineRows.push([keys.toLocaleString('en'), fixed(ms / 1000, 2)]);
      console.error(`[bench] baseline ${keys} keys: ${fixed(ms / 1000, 2)} s`);
    }
  }

  const hostile = manyKeysBody(131_000);
  const service = await withSandbox(
    {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: '1000000',
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '1000000',
    },
    async (sandbox) => {
      const api = await sandbox.start('api');
      const base = api.url as string;
      const health: number[] = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const started = performance.now();
          await fetch(`${base}/v1/health`).then((response) => response.arrayBuffer());
          health.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const refusals: Array<{ path: string; status: number; ms: number }> = [];
      for (let round = 0; round < bodies; round++) {
        for (const path of ['/v1/vocabularies', '/v1/webhooks']) {
          const started = performance.now();
          const response = await fetch(`${base}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
            body: hostile,
          });
          await response.arrayBuffer();
          refusals.push({ path, status: response.status, ms: performance.now() - started });
        }
      }
      polling = false;
      await poller;
      return { health, refusals };
    },
  );

  const refusalMs = service.refusals.map((refusal) => refusal.ms);
  const statuses = [...new Set(service.refusals.map((refusal) => refusal.status))].join(', ');
  const figures = {
    bodyBytes: Buffer.byteLength(hostile),
    baselineMsByKeys: baselineFigures,
    hostileBodies: service.refusals.length,
    refusalStatuses: statuses,
    refusalMsP50: percentile(refusalMs, 50),
    refusalMsMax: Math.max(...refusalMs),
    healthSamples: service.health.length,
    healthMsP50: percentile(service.health, 50),
    healthMsP99: percentile(service.health, 99),
    healthMsMax: Math.max(...service.health),
    targetHealthMs: 200,
    loadBefore,
    loadAfter: loadAverage(),
  };
  const markdown = [
    `Hostile body: ${figures.bodyBytes.toLocaleString('en')} bytes, 131,000 unknown keys. Load average before ${loadBefore}, after ${figures.loadAfter}.`,
    '',
    baselineRows.length > 0
      ? `Baseline (the DTO transformation the check now skips, in-process):\n\n${markdownTable(['keys', 'seconds'], baselineRows)}\n`
      : '',
    markdownTable(
      [
        'hostile bodies',
        'answer',
        'refusal p50 ms',
        'refusal max ms',
        'health samples',
        'health p50 ms',
        'health p99 ms',
        'health max ms',
        'target',
      ],
      [
        [
          String(figures.hostileBodies),
          statuses,
          fixed(figures.refusalMsP50, 1),
          fixed(figures.refusalMsMax, 1),
          String(figures.healthSamples),
          fixed(figures.healthMsP50, 1),
          fixed(figures.healthMsP99, 1),
          fixed(figures.healthMsMax, 1),
          figures.healthMsMax < 200 ? 'met (< 200 ms)' : 'MISSED (≥ 200 ms)',
        ],
      ],
    ),
  ].join('\n');
  publish('hostile-body', markdown, figures);
}

runMain(main);
