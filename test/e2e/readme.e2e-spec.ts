import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
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
import { dirname, join, relative } from 'node:path';
import { DataSource } from 'typeorm';
import { headingAnchors, readmeBlocks, ReadmeBlock, relativeLinks } from '../support/readme-blocks';
import { testAudio } from '../support/shared-paths';
import { QueueInspector, waitUntilSettled } from '../support/settled-work';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';
import { upload, waitForTerminal } from '../support/transcriptions';
import { RedisConfig } from '../../src/common/redis/redis.config';

const ROOT = join(__dirname, '..', '..');
const README_MAX_LINES = 250;

/** A Markdown file whose blocks run: its path from the repository root, its text and its blocks. */
interface Document {
  path: string;
  text: string;
  blocks: ReadmeBlock[];
}

function documentAt(path: string): Document {
  const text = readFileSync(join(ROOT, path), 'utf8');
  return { path, text, blocks: readmeBlocks(text) };
}

/** README.md first, then every guide of docs/guides/ in name order. */
const DOCUMENTS: Document[] = [
  documentAt('README.md'),
  ...readdirSync(join(ROOT, 'docs', 'guides'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => documentAt(`docs/guides/${name}`)),
];

/** Lines as `wc -l` counts them (a final newline ends the last line, it does not start another). */
function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

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

/** Where a file's blocks run: a scratch directory with the repository's entries linked in (downloads land here). */
function sandboxOf(directory: string): string {
  const sandbox = directory;
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
 * The README and the guides as a test: every fenced bash/sh/ts/js block of README.md and of each docs/guides/*.md
 * runs as written (placeholders filled in, see withPlaceholders) against one service this test starts, one
 * `describe` per file: README.md first, then the guides in name order. Shell blocks run with `bash -e`,
 * TypeScript with `npx tsx` as the README says (`.mts`, so top-level await works), JavaScript with `node`
 * (`.mjs`). A block passes when it exits 0 and every HTTP answer its curl calls got is below 400, or is a status
 * the block itself shows (e.g. `"status":410`). A block marked `<!-- readme-test: skip — reason -->` is listed as
 * a skipped test with its reason; in the guides only blocks that need Docker or a remote host are skipped, besides
 * the test suite itself and the full local contract run (test/e2e/contract-runner.e2e-spec.ts runs that).
 *
 * How blocks share state, the rule every file follows: each block is a process of its own, so no shell variable
 * or `export` reaches the next block. What every block of every file gets is the environment of the quick
 * start's `export` line (`$KEY`, `$STT_API_KEY`, `$STT_BASE_URL`; also `$BASE`), `$WORKSPACE_ID` (the demo
 * workspace) and `$ADMIN_TOKEN` (the service's operator token), and the placeholders `svc_live_…`, `<id>` (a
 * completed transcription made here before any block runs), `webhooks/<id>` and `<deliveryId>`. A file's blocks
 * run in order in a scratch copy of the repository of their own, so a block may use what an earlier block of
 * the same file left there (a download), never what another file's blocks made: each guide is self-sufficient
 * (it says at its top which variables it reads) and none depends on README's blocks having run.
 *
 * Besides the blocks, per file: no runnable block names the default port except as the default of
 * STT_BASE_URL, and every relative link names a file that exists (and a heading that exists, for `#anchor`);
 * and README.md stays within README_MAX_LINES lines (what a newcomer needs; the rest belongs to a guide).
 */
describe('README.md and docs/guides, run as written', () => {
  let t: TestApp;
  let receiver: Server;
  let queues: QueueInspector;
  let scratch: string;
  let values: Placeholders;
  let env: Record<string, string | undefined>;
  const adminToken = randomBytes(24).toString('hex');
  const statusLog = () => join(scratch, 'http-statuses');

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_TOKEN: adminToken });
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
      ADMIN_TOKEN: adminToken,
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

  it(`README.md has at most ${README_MAX_LINES} lines (the rest belongs in a guide of docs/guides)`, () => {
    expect(lineCount(DOCUMENTS[0].text)).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('docs/guides holds a guide for each reader', () => {
    expect(DOCUMENTS.map((document) => document.path)).toEqual(
      expect.arrayContaining(
        ['integrators', 'realtime', 'operators', 'backend', 'qa'].map((reader) => `docs/guides/${reader}.md`),
      ),
    );
  });

  for (const document of DOCUMENTS) {
    describe(document.path, () => {
      const slug = document.path.replace(/\.md$/, '').replace(/\W+/g, '-');
      let sandbox: string | undefined;

      async function runBlock(block: ReadmeBlock): Promise<void> {
        sandbox ??= sandboxOf(join(scratch, slug));
        const code = withPlaceholders(block.code, values);
        const name = `${slug}-line-${block.line}`;
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
        const report = `${document.path} line ${block.line} (${block.kind}):\n${code}\n--- exit ${outcome.code}, unexpected HTTP statuses [${refused.join(', ')}]; output:\n${outcome.output}`;
        expect(outcome.code === 0 && refused.length === 0 ? 'ran as written' : report).toBe('ran as written');
      }

      it('no runnable block names the default port other than as the default of STT_BASE_URL', () => {
        const hardCoded = document.blocks
          .filter((block) => block.skipReason === null)
          .map((block) => ({ line: block.line, rest: withoutDefaultBase(block.code) }))
          .filter(({ rest }) => /(?:localhost|127\.0\.0\.1):3000/.test(rest))
          .map(({ line }) => `${document.path} line ${line}`);
        expect(hardCoded).toEqual([]);
      });

      it('every relative link names a file (and heading) that exists', () => {
        const broken = relativeLinks(document.text)
          .map(({ line, target }) => ({ line, target, problem: linkProblem(document.path, target) }))
          .filter(({ problem }) => problem !== null)
          .map(({ line, target, problem }) => `${document.path} line ${line}: ${target} (${problem})`);
        expect(broken).toEqual([]);
      });

      for (const block of document.blocks) {
        if (block.skipReason !== null) {
          it.skip(`line ${block.line} (${block.kind}) is not run here: ${block.skipReason}`, () => undefined);
        } else {
          it(`line ${block.line} (${block.kind}) runs as written`, () => runBlock(block), 150_000);
        }
      }
    });
  }
});

/** Why a relative link of the file at `from` leads nowhere, or null when its file (and heading) exist. */
function linkProblem(from: string, target: string): string | null {
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = pathPart === '' ? join(ROOT, from) : join(ROOT, dirname(from), decodeURI(pathPart));
  if (relative(ROOT, file).startsWith('..')) return 'outside the repository';
  if (!existsSync(file)) return 'no such file';
  if (anchor === undefined || !file.endsWith('.md')) return null;
  return headingAnchors(readFileSync(file, 'utf8')).has(anchor) ? null : 'no such heading';
}
