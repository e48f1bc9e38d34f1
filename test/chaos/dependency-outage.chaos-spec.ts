import request from 'supertest';
import {
  ChaosWorkspace,
  createWorkspace,
  eventually,
  RawResponse,
  rawUpload,
  useChaosFixture,
} from '../support/chaos-harness';
import { expectMatchesSpec } from '../support/openapi-contract';
import { readFileSync } from 'node:fs';
import { testAudio } from '../support/shared-paths';
import { FaultMode, TcpFaultProxy } from '../support/tcp-fault-proxy';
import { baseTestEnvironment } from '../support/test-environment';

/**
 * What a client waits at most; the service must answer within it, outage or not (a hung PostgreSQL is
 * detected by the 10 s query timeout or the 5 s pool connection timeout).
 */
const CLIENT_TIMEOUT_MS = 15_000;
/** After the dependency is back, the service must serve normally again within this bound, by itself. */
const RECOVERY_BOUND_MS = 10_000;
const CLIP = readFileSync(testAudio('pocketsphinx/goforward.wav'));

interface Timed {
  status: number;
  ms: number;
  response: RawResponse;
}

/**
 * PostgreSQL and Redis outages, injected with a TCP proxy between the service and the machine's shared
 * servers (which keep running for everyone else): `reset` = the server restarts (connections cut, new ones
 * refused), `blackhole` = the server hangs (connections open, nothing answers).
 */
describe('Chaos: PostgreSQL and Redis outages during traffic', () => {
  const base = baseTestEnvironment();
  const postgresProxy = new TcpFaultProxy(Number(new URL(base.DATABASE_URL).port || 5432));
  const redisProxy = new TcpFaultProxy(Number(new URL(base.REDIS_URL).port || 6379));
  const chaos = useChaosFixture('outage', { startReceiver: false });
  let workspace: ChaosWorkspace;
  let apiUrl: string;

  beforeAll(async () => {
    await Promise.all([postgresProxy.start(), redisProxy.start()]);
    workspace = createWorkspace('Chaos outages', 1);
    const env = {
      ...chaos.env,
      DATABASE_URL: postgresProxy.rewrite(base.DATABASE_URL),
      REDIS_URL: redisProxy.rewrite(base.REDIS_URL),
    };
    apiUrl = (await chaos.processes.api(env)).url;
    await chaos.processes.worker(env);
  });
  // A failed test must not leave the next one (or the process shutdown) behind a dead proxy.
  afterEach(async () => {
    await Promise.all([postgresProxy.setMode('pass'), redisProxy.setMode('pass')]);
  });
  // After the fixture's afterAll, which stops the service processes first.
  afterAll(async () => {
    await Promise.all([postgresProxy.stop(), redisProxy.stop()]);
  });

  const authorization = () => ({ Authorization: `Bearer ${workspace.apiKey}` });

  async function timed(send: () => Promise<RawResponse>): Promise<Timed> {
    const started = Date.now();
    const response = await send();
    return { status: response.status, ms: Date.now() - started, response };
  }
  const get =
    (path: string, headers: Record<string, string> = {}) =>
    async (): Promise<RawResponse> => {
      const response = await request(apiUrl).get(path).set(headers).timeout(CLIENT_TIMEOUT_MS);
      return {
        status: response.status,
        headers: response.headers,
        text: response.text,
        body: response.body as unknown,
      };
    };

  const list = () => timed(get('/v1/transcriptions?limit=5', authorization()));
  const balance = () => timed(get('/v1/account/balance', authorization()));
  const health = () => timed(get('/v1/health'));
  const uploadClip = () =>
    timed(() => rawUpload(apiUrl, workspace.apiKey, 'goforward.wav', CLIP, CLIENT_TIMEOUT_MS));

  function expectServiceUnavailable(result: Timed, operationId: string): void {
    expect(result.status).toBe(503);
    expect(result.response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((result.response.body as { type: string }).type).toMatch(/\/service-unavailable$/);
    expect(Number(result.response.headers['retry-after'])).toBeGreaterThan(0);
    expectMatchesSpec(result.response, operationId);
  }

  /** Time from restoring the dependency until an authenticated read succeeds again. */
  async function measureRecovery(proxy: TcpFaultProxy): Promise<number> {
    await proxy.setMode('pass');
    const restoredAt = Date.now();
    await eventually(
      'an authenticated read succeeding after the restore',
      async () => (await list()).status === 200,
      RECOVERY_BOUND_MS,
      100,
    );
    return Date.now() - restoredAt;
  }

  const transcriptionsOfWorkspace = () => chaos.transcriptionsOf(workspace.workspaceId);

  it.each<[FaultMode, string]>([
    ['reset', 'restarted (connections cut, new ones refused)'],
    ['blackhole', 'hung (connections open, no answer)'],
  ])(
    'PostgreSQL %s — %s: 503 problems within the client timeout, health 200, recovery by itself',
    async (mode) => {
      expect((await list()).status).toBe(200);
      const before = await transcriptionsOfWorkspace();

      await postgresProxy.setMode(mode);
      // Traffic during the outage: concurrent requests, each bounded by the client timeout.
      const [listed, balanced, healthy, uploaded] = await Promise.all([
        list(),
        balance(),
        health(),
        uploadClip(),
      ]);
      const during = { list: listed, balance: balanced, health: healthy, upload: uploaded };
      console.log(
        `PostgreSQL ${mode}: ` +
          Object.entries(during)
            .map(([name, result]) => `${name} ${result.status} in ${result.ms} ms`)
            .join(', '),
      );
      expectServiceUnavailable(during.list, 'listTranscriptions');
      expectServiceUnavailable(during.balance, 'getBalance');
      expectServiceUnavailable(during.upload, 'createTranscription');
      expect(during.health.status).toBe(200);
      expectMatchesSpec(during.health.response, 'getHealth');

      const recoveryMs = await measureRecovery(postgresProxy);
      console.log(`PostgreSQL ${mode}: recovered ${recoveryMs} ms after the restore`);
      // The refused upload left no record behind.
      expect(await transcriptionsOfWorkspace()).toEqual(before);

      // Both processes work again: an upload is accepted and the worker completes it.
      const upload = await uploadClip();
      expect(upload.status).toBe(202);
      const id = (upload.response.body as { data: { id: string } }).data.id;
      await eventually(
        'the post-outage upload completing',
        async () => (await transcriptionsOfWorkspace()).find((row) => row.id === id)?.status === 'completed',
        60_000,
        250,
      );
    },
  );

  it('Redis restarted: rate limiting fails open, uploads are recorded and enqueued once Redis is back', async () => {
    await redisProxy.setMode('reset');
    const [listed, healthy, uploaded] = await Promise.all([list(), health(), uploadClip()]);
    const during = { list: listed, health: healthy, upload: uploaded };
    console.log(
      'Redis reset: ' +
        Object.entries(during)
          .map(([name, result]) => `${name} ${result.status} in ${result.ms} ms`)
          .join(', '),
    );
    expect(during.health.status).toBe(200);
    expect(during.list.status).toBe(200);
    expect(during.list.response.headers['x-ratelimit-limit']).toBeUndefined(); // unmetered, not refused
    expect(during.upload.status).toBe(202);
    // Not expectMatchesSpec: openapi.yaml requires the x-ratelimit-* headers on a 202, and a fail-open answer
    // cannot count (the document exempts only 503s and liveness; see the chaos report).
    expect(during.upload.response.headers['x-ratelimit-limit']).toBeUndefined();
    const created = during.upload.response.body as { data: { id: string; status: string } };
    expect(created.data.status).toBe('queued');
    const id = created.data.id;
    const row = (await transcriptionsOfWorkspace()).find((transcription) => transcription.id === id);
    expect(row?.status).toBe('queued');

    await redisProxy.setMode('pass');
    const restoredAt = Date.now();
    // Enqueued once Redis answers: by the upload's own add, still pending in the Bull client when the request
    // gave up waiting for it, or by the worker's reconciler (every 30 s) that finds the row without a job.
    await eventually(
      'the upload made during the outage completing',
      async () => (await transcriptionsOfWorkspace()).find((t) => t.id === id)?.status === 'completed',
      75_000,
      250,
    );
    console.log(`Redis reset: job from the outage completed ${Date.now() - restoredAt} ms after the restore`);
    const metered = await list();
    expect(metered.status).toBe(200);
    expect(metered.response.headers['x-ratelimit-limit']).toBeDefined();
  }, 150_000);
});
