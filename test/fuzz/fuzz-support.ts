/**
 * Shared pieces of the contract-driven fuzz suites: bounded fast-check settings with a printed, replayable seed, the
 * invariants every response must hold, request schemas from openapi.yaml (dereferenced for json-schema-faker
 * and Ajv), and "nothing written" snapshots of one workspace's rows and of the upload storage folder.
 */
import fc from 'fast-check';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { conformsTo, fakedValue, type JsonSchema } from '../../src/openapi/request-examples';
import { errorSlugs, expectMatchesSpec } from '../support/openapi-contract';

export {
  conformsTo,
  dereference,
  jsonBodySchema,
  queryParameters,
  type QueryParameter,
} from '../../src/openapi/request-examples';
import type { TestApp } from '../support/test-app';

/**
 * A new seed for every run (each fuzz file draws its own when it is loaded), so runs explore new inputs instead
 * of replaying one fixed sequence; FUZZ_SEED replays a printed one (fast-check also prints seed and path on a
 * failure); FUZZ_RUNS_FACTOR scales every property.
 */
export const FUZZ_SEED = fuzzSeed(process.env.FUZZ_SEED);

function fuzzSeed(fromEnvironment: string | undefined): number {
  if (fromEnvironment === undefined || fromEnvironment === '') {
    const seed = randomInt(2 ** 31);
    console.log(`fuzz seed ${seed} (new for this run; replay with FUZZ_SEED=${seed})`);
    return seed;
  }
  const seed = Number(fromEnvironment);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${fromEnvironment}`);
  console.log(`fuzz seed ${seed} (from FUZZ_SEED)`);
  return seed;
}
const RUNS_FACTOR = process.env.FUZZ_RUNS_FACTOR ? Number(process.env.FUZZ_RUNS_FACTOR) : 1;

/** fast-check parameters: fixed run count, the seed, and shrinking only on request (FUZZ_SHRINK=1). */
export function fuzzParameters(numRuns: number, path?: string): fc.Parameters<unknown> {
  return {
    numRuns: Math.max(1, Math.round(numRuns * RUNS_FACTOR)),
    seed: FUZZ_SEED,
    path: path ?? process.env.FUZZ_PATH,
    endOnFailure: process.env.FUZZ_SHRINK !== '1',
    verbose: fc.VerbosityLevel.None,
  };
}

export const ERRORS_BASE_URL = 'https://errors.transcription.example/problems';
const DOCUMENTED_SLUGS = new Set(errorSlugs());

export interface SentRequest {
  method: string;
  path: string;
  note?: string;
}

function describeSent(sent: SentRequest): string {
  const path = sent.path.length > 200 ? `${sent.path.slice(0, 200)}…` : sent.path;
  return `${sent.method} ${path}${sent.note ? ` [${sent.note}]` : ''}`;
}

/**
 * The invariants of the Bad-input section for one response: no 5xx, every error is application/problem+json
 * whose `type` is `{ERRORS_BASE_URL}/<slug>` for a slug openapi.yaml documents, and the response as a whole
 * is one openapi.yaml documents for the operation.
 */
export function expectInvariants(response: Response, operationId: string, sent: SentRequest): void {
  const where = `${describeSent(sent)} → ${response.status}`;
  if (response.status >= 500) {
    throw new Error(`${where}: a 5xx answer to bad input.\nBody: ${response.text?.slice(0, 500)}`);
  }
  if (response.status >= 400 && operationId === 'createOpenAiTranscription') {
    // The OpenAI-compatible route answers OpenAI's error shape instead (its schema is checked below).
    const error = (response.body as { error?: { type?: unknown } } | undefined)?.error;
    if (typeof error?.type !== 'string') {
      throw new Error(`${where}: not an OpenAI error body.\nBody: ${response.text?.slice(0, 500)}`);
    }
  } else if (response.status >= 400 && /AssemblyAi/.test(operationId)) {
    // The AssemblyAI-compatible routes answer AssemblyAI's `{"error": "…"}` (its schema is checked below).
    if (typeof (response.body as { error?: unknown } | undefined)?.error !== 'string') {
      throw new Error(`${where}: not an AssemblyAI error body.\nBody: ${response.text?.slice(0, 500)}`);
    }
  } else if (response.status >= 400 && operationId === 'createDeepgramTranscription') {
    // The Deepgram-compatible route answers Deepgram's error shape instead (its schema is checked below).
    const errCode = (response.body as { err_code?: unknown } | undefined)?.err_code;
    if (typeof errCode !== 'string') {
      throw new Error(`${where}: not a Deepgram error body.\nBody: ${response.text?.slice(0, 500)}`);
    }
  } else if (response.status >= 400) {
    const contentType = String(response.headers['content-type'] ?? '');
    if (!contentType.startsWith('application/problem+json')) {
      throw new Error(`${where}: Content-Type ${contentType || 'none'}, not application/problem+json.
Body: ${response.text?.slice(0, 500)}`);
    }
    const type = (response.body as { type?: unknown }).type;
    const slug =
      typeof type === 'string' && type.startsWith(`${ERRORS_BASE_URL}/`)
        ? type.slice(ERRORS_BASE_URL.length + 1)
        : '';
    if (!DOCUMENTED_SLUGS.has(slug)) {
      throw new Error(`${where}: problem type ${String(type)} is not a documented slug.`);
    }
  }
  try {
    expectMatchesSpec(response, operationId);
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`);
  }
}

export function slugOf(response: Response): string | undefined {
  const type = (response.body as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' ? type.slice(type.lastIndexOf('/') + 1) : undefined;
}

/** A storage folder of the suite's own, so files written by other suites running in parallel never count. */
export function privateStorageDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'stt-fuzz-storage-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function countFiles(dir: string): number {
  let count = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) count += countFiles(join(dir, entry.name));
    else count += 1;
  }
  return count;
}

export interface WrittenState {
  transcriptions: number;
  vocabularies: number;
  webhookEndpoints: number;
  idempotencyRecords: number;
  storedFiles: number;
}

/** Everything a request could write for a workspace: its rows in the four tables, and files in storage. */
export async function writtenState(
  t: TestApp,
  workspaceId: string,
  storageDir: string,
): Promise<WrittenState> {
  const [row] = await t.app.get(DataSource).query<Array<Omit<WrittenState, 'storedFiles'>>>(
    `SELECT (SELECT count(*) FROM transcriptions WHERE workspace_id = $1)::int AS transcriptions,
            (SELECT count(*) FROM vocabularies WHERE workspace_id = $1)::int AS vocabularies,
            (SELECT count(*) FROM webhook_endpoints WHERE workspace_id = $1)::int AS "webhookEndpoints",
            (SELECT count(*) FROM idempotency_records WHERE workspace_id = $1)::int AS "idempotencyRecords"`,
    [workspaceId],
  );
  return { ...row, storedFiles: countFiles(storageDir) };
}

/**
 * The state before a request, once the previous request's asynchronous clean-up (a refused upload removes
 * its partial file after answering) has finished: two equal readings 100 ms apart, within about 2 s.
 */
export async function settledWrittenState(
  t: TestApp,
  workspaceId: string,
  storageDir: string,
): Promise<WrittenState> {
  let previous = await writtenState(t, workspaceId, storageDir);
  for (let reading = 0; reading < 20; reading++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const current = await writtenState(t, workspaceId, storageDir);
    if (JSON.stringify(current) === JSON.stringify(previous)) return current;
    previous = current;
  }
  return previous;
}

/**
 * A rejected request must leave nothing behind. A refused upload removes its partial file while the answer
 * is on its way, so the storage count is read again until it is back (for up to 10 s: how long the removal takes
 * depends on the machine's load, a CI run needed more than the 0.5 s this once allowed); rows must already be
 * unchanged. A file that stays is still a failure.
 */
export async function expectNothingWritten(
  t: TestApp,
  workspaceId: string,
  storageDir: string,
  before: WrittenState,
  sent: SentRequest,
): Promise<void> {
  let after = await writtenState(t, workspaceId, storageDir);
  const deadline = Date.now() + 10_000;
  while (after.storedFiles !== before.storedFiles && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    after = await writtenState(t, workspaceId, storageDir);
  }
  if (JSON.stringify(after) !== JSON.stringify(before)) {
    throw new Error(
      `${describeSent(sent)}: a rejected request wrote something.\nbefore ${JSON.stringify(before)}\nafter  ${JSON.stringify(after)}`,
    );
  }
}

/**
 * Values json-schema-faker derives from a schema, reproducible through the integer fast-check draws. Only
 * values the contract's oracle (Ajv) accepts count as valid: the faker's formats are looser now and then (an
 * `email` without a dot in its domain, drawn by seed 468151939 once seeds changed per run), so such a draw is
 * drawn again rather than sent as a "valid" body the service rightly refuses.
 */
export function schemaValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fakedDraw(schema).filter((value) => conformsTo(schema, value));
}

function fakedDraw(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((seed) => fakedValue(schema, seed));
}

/** Strings meant to break parsers and validators: unicode, control characters, huge, injection-shaped. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\uFEFF',
    '\u202E\u0041',
    '🎙️🔥',
    // At the limits: 100 characters to class-validator, 200 code points to PostgreSQL. (Lone surrogates are raw
    // JSON bodies in operations.fuzz-spec.ts: a path or query cannot even be percent-encoded with one.)
    '❤️'.repeat(100),
    'ä'.repeat(300),
    "' OR 1=1 --",
    '${jndi:ldap://x}',
    '../../etc/passwd',
    '%00',
    'null',
    'undefined',
    '[object Object]',
    '-1',
    '1e309',
    'NaN',
    '0x10',
  ),
  fc.integer({ min: 1_000, max: 6_000 }).map((length) => 'x'.repeat(length)),
);

/** JSON values with a few deeper shapes: wrong-typed replacements for any member. */
export const wrongJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  nastyString,
  fc.constantFrom(
    null,
    true,
    0,
    -1,
    1.5,
    1e308,
    [],
    {},
    [null],
    { $ne: null },
    { __proto__: { admin: true } },
  ),
);

/** `members` object members as raw JSON: in one object, or spread over objects of three inside an array. */
export function memberBomb(members: number, shape: 'one' | 'spread'): string {
  if (shape === 'one') {
    return `{${Array.from({ length: members }, (_, index) => `"k${index.toString(36)}":0`).join(',')}}`;
  }
  const objects = Array.from({ length: Math.ceil(members / 3) }, () => '{"a":1,"b":2,"c":3}');
  return `{"name":"x","words":[${objects.join(',')}]}`;
}

/** `[[[[…]]]]` and `{"a":{"a":…}}` nesting bombs, as raw text (JSON.stringify would itself recurse). */
export function nestingBomb(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}
