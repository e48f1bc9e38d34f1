import { execFile } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { readmeBlocks, ReadmeBlock } from '../support/readme-blocks';
import { testAudio } from '../support/shared-paths';
import { QueueInspector, waitUntilSettled } from '../support/settled-work';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';
import { upload, waitForTerminal } from '../support/transcriptions';
import { RedisConfig } from '../../src/common/redis/redis.config';

const ROOT = join(__dirname, '..', '..');
const BLOCKS = readmeBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));

/** What a block gets for the README's documented placeholders. */
interface Placeholders {
  base: string;
  apiKey: string;
  workspaceId: string;
  transcriptionId: string;
  webhookId: string;
  deliveryId: string;
}

/**
 * The block's text with the README's placeholders filled in, nothing else changed: the key `svc_live_…` the
 * quick start prints, `<id>` (a completed transcription; after `webhooks/`, a webhook endpoint) and
 * `<deliveryId>`. The service's address is not a placeholder: the blocks read `$STT_BASE_URL` (set to this
 * test's service, on a random port), as do `$KEY`, `$STT_API_KEY`, `$BASE` and `$WORKSPACE_ID`.
 */
function withPlaceholders(code: string, values: Placeholders): string {
  return code
    .replace(/svc_live_…/g, values.apiKey)
    .replace(/webhooks\/<id>/g, `webhooks/${values.webhookId}`)
    .replace(/<deliveryId>/g, values.deliveryId)
    .replace(/<id>/g, values.transcriptionId);
}

/**
 * The block without the one allowed spelling of the default address: `${STT_BASE_URL:-http://localhost:3000}`
 * in shell, `process.env.STT_BASE_URL ?? 'http://localhost:3000'` in TypeScript/JavaScript.
 */
function withoutDefaultBase(code: string): string {
  return code
    .replace(/\$\{STT_BASE_URL:-http:\/\/localhost:3000\}/g, '')
    .replace(/process\.env\.STT_BASE_URL \?\? 'http:\/\/localhost:3000'/g, '');
}

/**
 * A `curl` first on the blocks' PATH that runs the real one and records each answer's HTTP status (curl exits 0
 * on a 404, so the exit code alone would not notice a snippet that stopped working).
 */
const CURL_RECORDER = `#!/usr/bin/env bash
/usr/bin/curl "$@" --write-out '%{stderr}\\nreadme-test-http-status %{http_code}\\n' \\
  2> >(while IFS= read -r line; do
         case "$line" in
           'readme-test-http-status '*) echo "\${line#readme-test-http-status }" >> "$README_TEST_STATUS_LOG" ;;
           *) printf '%s\\n' "$line" >&2 ;;
         esac
       done)
`;

/** Where the blocks run: a scratch directory with the repository's entries linked in (downloads land here). */
function sandboxOf(directory: string): string {
  const sandbox = join(directory, 'repo');
  mkdirSync(sandbox);
  for (const entry of readdirSync(ROOT)) {
    if (entry === '.git' || entry === '.env') continue;
    symlinkSync(join(ROOT, entry), join(sandbox, entry));
  }
  return sandbox;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { ...options, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}${error?.killed ? '\n(killed after 140 s)' : ''}` });
      },
    );
  });
}

/**
 * The README as a test: every fenced bash/sh/ts/js block of README.md runs as written (placeholders filled in,
 * see withPlaceholders) against a service this test starts, in order, so later blocks may use what earlier
 * ones made. Shell blocks run with `bash -e`, TypeScript with `npx tsx` as the README says (`.mts`, so top-level
 * await works), JavaScript with `node` (`.mjs`). A block passes when it exits 0 and every HTTP answer its curl
 * calls got is below 400, or is a status the block itself shows (e.g. `"status":410`). A block marked
 * `<!-- readme-test: skip — reason -->` is listed as a skipped test with its reason.
 */
describe('README.md, run as written', () => {
  let t: TestApp;
  let receiver: Server;
  let queues: QueueInspector;
  let scratch: string;
  let sandbox: string;
  let values: Placeholders;
  let env: Record<string, string | undefined>;
  const statusLog = () => join(scratch, 'http-statuses');

  beforeAll(async () => {
    t = await startTestApp();
    queues = new QueueInspector(t.config.get(RedisConfig).REDIS_URL, t.config.get(RedisConfig).REDIS_PREFIX);
    const base = `http://127.0.0.1:${await t.listeningPort()}`;
    // As the quick start makes it: 10 EUR and the default free transcriptions.
    const demo = await t.createWorkspace({ name: 'README demo', balanceEur: 10 });

    // The `<id>` of the blocks: a completed job (a short clip: only its being done matters here).
    const created = await upload(t, demo.apiKey, testAudio('pocketsphinx/goforward.wav'));
    expect(created.status).toBe(202);
    const transcriptionId = created.body.data.id as string;
    expect((await waitForTerminal(t, demo.apiKey, transcriptionId, 150_000)).status).toBe('completed');

    receiver = createServer((request, response) => request.resume().on('end', () => response.end('ok')));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const hook = await t
      .http()
      .post('/v1/webhooks')
      .set(bearer(demo.apiKey))
      .send({ url: hookUrl, events: ['transcription.completed'] });
    expect(hook.status).toBe(201);
    const ping = await t.http().post(`/v1/webhooks/${hook.body.data.id}/test`).set(bearer(demo.apiKey));
    expect(ping.status).toBe(202);

    values = {
      base,
      apiKey: demo.apiKey,
      workspaceId: demo.workspaceId,
      transcriptionId,
      webhookId: hook.body.data.id as string,
      deliveryId: ping.body.data.id as string,
    };
    scratch = mkdtempSync(join(tmpdir(), 'stt-readme-'));
    sandbox = sandboxOf(scratch);
    const bin = join(scratch, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'curl'), CURL_RECORDER);
    chmodSync(join(bin, 'curl'), 0o755);
    env = {
      ...process.env,
      ...baseTestEnvironment(),
      PATH: `${bin}:${process.env.PATH}`,
      KEY: demo.apiKey,
      STT_API_KEY: demo.apiKey,
      BASE: base,
      STT_BASE_URL: base,
      WORKSPACE_ID: demo.workspaceId,
      README_TEST_STATUS_LOG: statusLog(),
    };
  }, 180_000);

  afterAll(async () => {
    // The jobs the blocks started finish before the app closes (no job is cut off mid-way).
    if (values) {
      const dataSource = t.app.get(DataSource);
      await waitUntilSettled(
        (sql, params) => dataSource.query(sql, params),
        queues,
        values.workspaceId,
        90_000,
      );
    }
    await queues?.close();
    receiver?.close();
    await t?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 120_000);

  async function runBlock(block: ReadmeBlock): Promise<void> {
    const code = withPlaceholders(block.code, values);
    const name = `readme-line-${block.line}`;
    writeFileSync(statusLog(), '');
    let outcome: { code: number; output: string };
    if (block.kind === 'shell') {
      writeFileSync(join(sandbox, `${name}.sh`), code);
      outcome = await run('bash', ['-e', `${name}.sh`], { cwd: sandbox, env });
    } else if (block.kind === 'typescript') {
      writeFileSync(join(sandbox, `${name}.mts`), code);
      outcome = await run('npx', ['tsx', `${name}.mts`], { cwd: sandbox, env });
    } else {
      writeFileSync(join(sandbox, `${name}.mjs`), code);
      outcome = await run('node', [`${name}.mjs`], { cwd: sandbox, env });
    }
    const shown = new Set(block.code.match(/\b[45]\d\d\b/g) ?? []);
    const refused = readFileSync(statusLog(), 'utf8')
      .split('\n')
      .filter((status) => /^[45]\d\d$/.test(status) && !shown.has(status));
    const report = `README.md line ${block.line} (${block.kind}):\n${code}\n--- exit ${outcome.code}, unexpected HTTP statuses [${refused.join(', ')}]; output:\n${outcome.output}`;
    expect(outcome.code === 0 && refused.length === 0 ? 'ran as written' : report).toBe('ran as written');
  }

  it('no runnable block names the default port other than as the default of STT_BASE_URL', () => {
    const hardCoded = BLOCKS.filter((block) => block.skipReason === null)
      .map((block) => ({ line: block.line, rest: withoutDefaultBase(block.code) }))
      .filter(({ rest }) => /(?:localhost|127\.0\.0\.1):3000/.test(rest))
      .map(({ line }) => `README.md line ${line}`);
    expect(hardCoded).toEqual([]);
  });

  for (const block of BLOCKS) {
    if (block.skipReason !== null) {
      it.skip(`line ${block.line} (${block.kind}) is not run here: ${block.skipReason}`, () => undefined);
    } else {
      it(`line ${block.line} (${block.kind}) runs as written`, () => runBlock(block), 150_000);
    }
  }
});
