/**
 * The contract runner QA points at deployments (`npx stt-contract`), run as a child process (node
 * dist/contract-runner/cli.js, as QA runs it) against the service this test starts. It passes and covers every
 * operation; and it can fail: through a proxy that breaks one thing at a time, each run fails naming the
 * operationId and the JSON path of what was broken.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '../../src/auth/session/password-hasher';
import { operationIds } from '../support/openapi-contract';
import { freePort } from '../support/service-process';
import { startTestApp, type TestApp } from '../support/test-app';

const CLI = join(__dirname, '..', '..', 'dist', 'contract-runner', 'cli.js');

interface RunnerResult {
  code: number | null;
  output: string;
}

/** Runs the CLI to its end; `onOutput` sees the output as it comes (and may signal the child). */
function runContract(
  args: string[],
  onOutput?: (output: string, child: ChildProcess) => void,
  env: Record<string, string> = {},
): Promise<RunnerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      onOutput?.(output, child);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What one mutation does to an answer of the matching request (method and path without the query). */
type Mutation = (request: { method: string; path: string }, answer: Answer) => Answer;

/** An HTTP proxy in front of the service that hands every answer to `mutation` before passing it on. */
class MutatingProxy {
  private server: Server | undefined;
  mutation: Mutation = (_request, answer) => answer;

  async start(target: number): Promise<string> {
    this.server = createServer((request, response) => {
      const upstream = httpRequest(
        {
          host: '127.0.0.1',
          port: target,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const path = (request.url ?? '/').split('?')[0];
            const changed = this.mutation(
              { method: request.method ?? 'GET', path },
              {
                status: answer.statusCode ?? 502,
                headers: { ...answer.headers },
                body: Buffer.concat(chunks),
              },
            );
            const headers = { ...changed.headers };
            delete headers['transfer-encoding'];
            headers['content-length'] = String(changed.body.length);
            response.writeHead(changed.status, headers).end(changed.body);
          });
        },
      );
      upstream.on('error', () => response.destroy());
      request.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

function jsonChange(answer: Answer, change: (body: { data: Record<string, unknown> }) => void): Answer {
  const body = JSON.parse(answer.body.toString('utf8')) as { data: Record<string, unknown> };
  change(body);
  return { ...answer, body: Buffer.from(JSON.stringify(body)) };
}

describe('stt-contract (the contract runner) against a running service', () => {
  let t: TestApp;
  let baseUrl: string;
  let port: number;
  let apiKey: string;
  let userId: string;
  let otherKey: string;
  const email = `contract-${Date.now()}@example.com`;
  const password = 'contract-runner-password';
  const proxy = new MutatingProxy();
  let proxyUrl: string;
  const junitDir = mkdtempSync(join(tmpdir(), 'stt-contract-'));

  beforeAll(async () => {
    t = await startTestApp();
    port = await t.listeningPort();
    baseUrl = `http://127.0.0.1:${port}`;
    ({ apiKey, userId } = await t.createWorkspace({
      name: 'Contract QA',
      email,
      passwordHash: await hashPassword(password),
    }));
    otherKey = (await t.createWorkspace({ name: 'Contract QA, the other tenant' })).apiKey;
    proxyUrl = await proxy.start(port);
  });

  afterAll(async () => {
    await proxy.stop();
    await t.close();
    rmSync(junitDir, { recursive: true, force: true });
  });

  it('passes in full mode, with a session, a second tenant and webhooks, and covers every operation', async () => {
    const webhookPort = await freePort();
    const junit = join(junitDir, 'contract.xml');
    const { code, output } = await runContract([
      '--base-url',
      baseUrl,
      '--api-key',
      apiKey,
      '--api-key-2',
      otherKey,
      '--email',
      email,
      '--password',
      password,
      '--webhook-listen',
      String(webhookPort),
      '--webhook-public-url',
      `http://127.0.0.1:${webhookPort}/hooks`,
      '--max-examples',
      '3',
      '--junit',
      junit,
    ]);
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('RESULT: PASS') });
    expect(output).toMatch(/seed \d+ \(replay with --seed \d+\)/);
    // The coverage table: a row per operation with the statuses seen, none left untouched.
    for (const operationId of [
      ...operationIds(),
      'deliverTranscriptionCompleted',
      'deliverTranscriptionFailed',
      'deliverWebhookTest',
    ]) {
      expect(output).toMatch(new RegExp(`\\| ${operationId} +\\| [^|]+\\| \\d`));
    }
    // Only balance.low is never provoked (it takes spending money); it is listed as skipped with the reason.
    expect(output).toContain('Operations with no answer seen: deliverBalanceLow\n');
    expect(output).toMatch(/deliverBalanceLow: received and verified — needs the balance to fall below/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="stt-contract" tests="\d+" failures="0"/);
    expect(xml).toContain('<testsuite name="createTranscription"');
    // Clean-up: nothing the run created is left (its tag marks names).
    const left = await t
      .http()
      .get('/v1/vocabularies')
      .set({ Authorization: `Bearer ${apiKey}` });
    expect(left.body.data).toEqual([]);
    const jobs = await t
      .http()
      .get('/v1/transcriptions')
      .set({ Authorization: `Bearer ${apiKey}` });
    expect(jobs.body.data).toEqual([]);
    const hooks = await t
      .http()
      .get('/v1/webhooks')
      .set({ Authorization: `Bearer ${apiKey}` });
    expect(hooks.body.data).toEqual([]);
  });

  it('read-only mode without jobs: changes no settings or keys and leaves nothing behind', async () => {
    const auth = { Authorization: `Bearer ${apiKey}` };
    const jwt = { Authorization: `Bearer ${t.issueToken(userId)}` };
    const keysBefore = await t.http().get('/v1/api-keys').set(jwt);
    const settingsBefore = await t.http().get('/v1/account/settings').set(jwt);
    // The key and the password from the environment (STT_*), as docs/guides/qa.md recommends: not in the process list.
    const { code, output } = await runContract(
      ['--base-url', baseUrl, '--email', email, '--mode', 'read-only', '--no-jobs', '--max-examples', '1'],
      undefined,
      { STT_API_KEY: apiKey, STT_PASSWORD: password },
    );
    expect({ code, result: output.match(/RESULT: \w+/)?.[0] }).toEqual({ code: 0, result: 'RESULT: PASS' });
    expect(output).toContain('createTranscription: uploads the fixture clip — --no-jobs');
    expect(output).toContain(
      'createApiKey: creates, uses and revokes a key — read-only mode creates no API key',
    );
    expect(output).toContain(
      'updateAccountSettings: changes the settings — read-only mode changes no settings',
    );
    const keyIds = (body: { data: Array<{ id: string }> }) => body.data.map((key) => key.id);
    expect(keyIds((await t.http().get('/v1/api-keys').set(jwt)).body)).toEqual(keyIds(keysBefore.body));
    expect((await t.http().get('/v1/account/settings').set(jwt)).body).toEqual(settingsBefore.body);
    expect((await t.http().get('/v1/vocabularies').set(auth)).body.data).toEqual([]);
    expect((await t.http().get('/v1/webhooks').set(auth)).body.data).toEqual([]);
  });

  it('on SIGTERM it stops and still removes what it created', async () => {
    const auth = { Authorization: `Bearer ${apiKey}` };
    let signalled = false;
    const { code, output } = await runContract(
      ['--base-url', baseUrl, '--api-key', apiKey, '--no-jobs', '--verbose'],
      (soFar, child) => {
        // Once the webhook endpoint exists the run holds a vocabulary and an endpoint.
        if (!signalled && soFar.includes('createWebhook: registers an endpoint')) {
          signalled = true;
          child.kill('SIGTERM');
        }
      },
    );
    expect(signalled).toBe(true);
    expect(code).toBe(143);
    expect(output).toContain('SIGTERM: stopping, then removing what the run created');
    expect(output).toMatch(/ok {3}deleteWebhook: deletes the run’s endpoint/);
    expect(output).toMatch(/ok {3}deleteVocabulary: deletes the run’s vocabulary/);
    expect((await t.http().get('/v1/vocabularies').set(auth)).body.data).toEqual([]);
    expect((await t.http().get('/v1/webhooks').set(auth)).body.data).toEqual([]);
  });

  const mutations: Array<{ kind: string; operations: string; mutation: Mutation; names: RegExp[] }> = [
    {
      kind: 'drops a required field',
      operations: 'getBalance',
      mutation: (request, answer) =>
        request.path === '/v1/account/balance' && answer.status === 200
          ? jsonChange(answer, (body) => delete body.data.balance)
          : answer,
      names: [
        /getBalance GET \/v1\/account\/balance → 200: \$\.data\.balance: .*required property 'balance'/,
      ],
    },
    {
      kind: 'changes a type',
      operations: 'getBalance',
      mutation: (request, answer) =>
        request.path === '/v1/account/balance' && answer.status === 200
          ? jsonChange(answer, (body) => (body.data.freeTranscriptionsRemaining = '3'))
          : answer,
      names: [
        /getBalance GET \/v1\/account\/balance → 200: \$\.data\.freeTranscriptionsRemaining: .*must be integer/,
      ],
    },
    {
      kind: 'answers an undocumented status',
      operations: 'getUsage',
      mutation: (request, answer) =>
        request.path === '/v1/account/usage' && answer.status === 200 ? { ...answer, status: 418 } : answer,
      names: [
        /getUsage GET \/v1\/account\/usage\S* → 418: status: 418, a status openapi.yaml does not document/,
      ],
    },
    {
      kind: 'sends application/json instead of application/problem+json',
      operations: 'getVocabulary',
      mutation: (_request, answer) =>
        String(answer.headers['content-type']).startsWith('application/problem+json')
          ? { ...answer, headers: { ...answer.headers, 'content-type': 'application/json; charset=utf-8' } }
          : answer,
      names: [
        /getVocabulary GET \/v1\/vocabularies\/\S+ → 404: header Content-Type: Content-Type application\/json is not documented/,
      ],
    },
    {
      kind: 'omits x-ratelimit-*',
      operations: 'listVocabularies',
      mutation: (request, answer) => {
        if (request.path !== '/v1/vocabularies' || answer.status !== 200) return answer;
        const headers = Object.fromEntries(
          Object.entries(answer.headers).filter(([name]) => !name.startsWith('x-ratelimit-')),
        );
        return { ...answer, headers };
      },
      names: [
        /listVocabularies GET \/v1\/vocabularies → 200: header x-ratelimit-limit: required response header x-ratelimit-limit is missing/,
      ],
    },
  ];

  it.each(mutations)(
    'fails naming the operation and the JSON path when the proxy $kind',
    async ({ operations, mutation, names }) => {
      proxy.mutation = mutation;
      const { code, output } = await runContract([
        '--base-url',
        proxyUrl,
        '--api-key',
        apiKey,
        '--no-jobs',
        '--max-examples',
        '1',
        '--operations',
        operations,
      ]);
      expect({ code, result: output.match(/RESULT: \w+/)?.[0] }).toEqual({ code: 1, result: 'RESULT: FAIL' });
      for (const name of names) expect(output).toMatch(name);
    },
  );
});
