import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { WebhookReceiver } from '../support/chaos-harness';
import { eventually } from '../support/eventually';
import { streamedUpload } from '../support/early-refusal';
import { NginxProxy } from '../support/nginx';
import {
  expectEventFrameMatchesSpec,
  expectMatchesSpec,
  expectWebhookMatchesSpec,
} from '../support/openapi-contract';
import { rawAudio, RealtimeTestClient } from '../support/realtime';
import { startS3Emulator, type S3Emulator } from '../support/s3-emulator';
import { freePort, ServiceProcess } from '../support/service-process';
import { cookieValue, createUserWithPassword } from '../support/sessions';
import { testAudio } from '../support/shared-paths';
import { baseTestEnvironment } from '../support/test-environment';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const RATE_LIMIT = 40;
const LOGIN_FAILURES_PER_CLIENT = 3;
const PASSWORD = 'load balanced sign-in password';
const METRICS_TOKEN = `load-balanced-${randomUUID()}`;
/** The first clip is long (18.6 s of speech), so its job is still running when its event stream reconnects. */
const CLIPS = [
  'picovoice-falcon/test.wav',
  'pocketsphinx/goforward.wav',
  'coqui-stt/LDC93S1.wav',
  'pocketsphinx/goforward.wav',
  'coqui-stt/LDC93S1.wav',
  'pocketsphinx/goforward.wav',
];

interface Frame {
  id: string;
  status: string;
  progress: number;
}

interface Stream {
  status: number;
  frames: Frame[];
  /** Named events (`event: shutdown`). */
  events: string[];
}

/**
 * GET …/events through nginx: reads frames until the server ends the stream, or until `stopWhen` says the client
 * has seen enough (it then goes away, as a closed browser tab or a dropped network does). Bounded in time.
 */
function readEvents(
  url: string,
  apiKey: string,
  id: string,
  options: { requestId: string; lastEventId?: string; stopWhen?: (frame: Frame) => boolean },
): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const stream: Stream = { status: 0, frames: [], events: [] };
    const outgoing = httpRequest(
      `${url}/v1/transcriptions/${id}/events`,
      {
        headers: {
          ...bearer(apiKey),
          Accept: 'text/event-stream',
          'X-Request-Id': options.requestId,
          ...(options.lastEventId ? { 'Last-Event-ID': options.lastEventId } : {}),
        },
        timeout: 90_000,
      },
      (incoming) => {
        stream.status = incoming.statusCode ?? 0;
        incoming.setEncoding('utf8');
        let buffer = '';
        incoming.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end).split('\n');
            buffer = buffer.slice(end + 2);
            const field = (name: string) =>
              block.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
            const event = field('event');
            const data = field('data');
            if (event) stream.events.push(event);
            else if (data) {
              const payload = JSON.parse(data) as unknown;
              expectEventFrameMatchesSpec(payload);
              const frame = { id: field('id') ?? '', ...(payload as { status: string; progress: number }) };
              stream.frames.push(frame);
              if (options.stopWhen?.(frame)) {
                outgoing.destroy();
                resolve(stream);
                return;
              }
            }
          }
        });
        incoming.on('end', () => resolve(stream));
        incoming.on('error', () => resolve(stream));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`event stream of ${id} still open after 90 s`)));
    outgoing.on('error', (error) => (stream.status === 0 ? reject(error) : resolve(stream)));
    outgoing.end();
  });
}

/** Sums a counter's samples whose labels contain every given `name="value"` pair. */
function sumSamples(metricsText: string, name: string, labels: string[]): number {
  return metricsText
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)))
    .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * Two API processes and two workers (real `node dist/main.js`, ROLE=api / ROLE=worker, shared PostgreSQL, Redis
 * prefix and S3 endpoint) behind Debian's nginx running deploy/nginx.conf: round-robin, no stickiness. Every call
 * of these tests goes through nginx; which API process answered each one is read from nginx's access log (the
 * request's X-Request-Id next to the upstream address), so "the other replica" is checked, not assumed.
 */
describe('Behind nginx (deploy/nginx.conf): 2 API + 2 worker processes, every call through the proxy', () => {
  const prefix = `${baseTestEnvironment().REDIS_PREFIX}-lb-${randomUUID().slice(0, 8)}`;
  const started = Date.now();
  let emulator: S3Emulator;
  let provisioning: TestApp;
  const nginx = new NginxProxy();
  const apis: Array<{ process: ServiceProcess; port: number }> = [];
  const workers: Array<{ process: ServiceProcess; metricsUrl: string }> = [];
  const receiver = new WebhookReceiver();

  /** Which API process answered the request with this id (its port), from nginx's access log. */
  const servedBy = async (requestId: string): Promise<number> =>
    Number((await nginx.served(requestId)).upstream.split(':').pop());
  const requestId = () => randomUUID();

  beforeAll(async () => {
    emulator = await startS3Emulator();
    const shared = {
      REDIS_PREFIX: prefix,
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: String(RATE_LIMIT),
      METRICS_TOKEN,
      // nginx on loopback is the proxy whose X-Forwarded-For the processes believe.
      TRUST_PROXY: 'loopback',
      LOGIN_MAX_FAILURES_PER_CLIENT: String(LOGIN_FAILURES_PER_CLIENT),
      LOGIN_BACKOFF_BASE_SECONDS: '600',
      ...emulator.env,
    };
    provisioning = await startTestApp({ ROLE: 'api', ...shared });
    const apiPorts = [await freePort(), await freePort()];
    const metricsPorts = [await freePort(), await freePort()];
    const [api1, api2, worker1, worker2] = await Promise.all([
      ...apiPorts.map((port) => new ServiceProcess({ ...shared, ROLE: 'api', PORT: String(port) }).start()),
      ...metricsPorts.map((port) =>
        new ServiceProcess({ ...shared, ROLE: 'worker', METRICS_PORT: String(port) }).start(),
      ),
    ]);
    apis.push({ process: api1, port: apiPorts[0] }, { process: api2, port: apiPorts[1] });
    workers.push(
      { process: worker1, metricsUrl: `http://127.0.0.1:${metricsPorts[0]}` },
      { process: worker2, metricsUrl: `http://127.0.0.1:${metricsPorts[1]}` },
    );
    await nginx.start(apiPorts);
    await receiver.start();
  });
  afterAll(async () => {
    await Promise.all([...apis, ...workers].map(({ process }) => process.stop()));
    await nginx.stop();
    await receiver.stop();
    await provisioning?.close();
    await emulator?.stop();
    process.stdout.write(`load-balanced suite: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  });

  it('uploads spread over both APIs; an event stream reconnected with Last-Event-ID on the other API goes on to the end; each job run, billed and delivered once', async () => {
    const { apiKey, workspaceId } = await provisioning.createWorkspace({
      name: 'Load-balanced jobs',
      balanceEur: 5,
      freeTranscriptions: 0,
    });
    const registered = await request(nginx.url)
      .post('/v1/webhooks')
      .set(bearer(apiKey))
      .send({ url: receiver.url(`/lb-${workspaceId}`), events: ['transcription.completed'] });
    expect(registered.status).toBe(201);

    const ids: string[] = [];
    const uploadServers = new Set<number>();
    for (const clip of CLIPS) {
      const id = requestId();
      const created = await request(nginx.url)
        .post('/v1/transcriptions')
        .set({ ...bearer(apiKey), 'X-Request-Id': id })
        .attach('file', testAudio(clip));
      expectMatchesSpec(created, 'createTranscription');
      expect(created.status).toBe(202);
      ids.push(created.body.data.id as string);
      uploadServers.add(await servedBy(id));
    }
    expect([...uploadServers].sort()).toEqual(apis.map((api) => api.port).sort());

    // Every job followed to its end by a stream of its own, wherever nginx puts it.
    const followers = ids.slice(1).map((id) => readEvents(nginx.url, apiKey, id, { requestId: requestId() }));

    // The long job: the client sees it start, goes away, and reconnects with the last id it saw.
    const firstId = requestId();
    const first = await readEvents(nginx.url, apiKey, ids[0], {
      requestId: firstId,
      stopWhen: (frame) => frame.status === 'processing',
    });
    const lastSeen = first.frames.at(-1) as Frame;
    expect(lastSeen.status).toBe('processing');
    // The frame came as the job ran, not with the stream's end (nothing buffered it on the way). Read from
    // PostgreSQL, not through nginx: the reconnection must be nginx's next request.
    const dataSource = provisioning.app.get(DataSource);
    const [meanwhile] = await dataSource.query<Array<{ status: string }>>(
      'SELECT status FROM transcriptions WHERE id = $1',
      [ids[0]],
    );
    expect(meanwhile.status).toBe('processing');
    const secondId = requestId();
    const second = await readEvents(nginx.url, apiKey, ids[0], {
      requestId: secondId,
      lastEventId: lastSeen.id,
    });
    const [firstServer, secondServer] = [await servedBy(firstId), await servedBy(secondId)];
    expect(secondServer).not.toBe(firstServer);
    // Together the two streams carry the job's life in order, never stepping back, to its terminal frame.
    const frames = [...first.frames, ...second.frames];
    expect(second.frames[0].status).not.toBe('queued');
    expect(Number(second.frames[0].id)).toBeGreaterThanOrEqual(Number(lastSeen.id));
    expect(frames.map((frame) => Number(frame.id))).toEqual(
      [...frames.map((frame) => Number(frame.id))].sort((a, b) => a - b),
    );
    expect(second.frames.at(-1)).toEqual({ id: '102', status: 'completed', progress: 100 });
    // A client that has the end is told so by either API: 204, no reconnecting.
    const endIds = [requestId(), requestId()];
    for (const id of endIds) {
      const again = await readEvents(nginx.url, apiKey, ids[0], { requestId: id, lastEventId: '102' });
      expect(again.status).toBe(204);
    }
    expect(new Set(await Promise.all(endIds.map(servedBy))).size).toBe(2);

    for (const stream of await Promise.all(followers)) {
      expect(stream.status).toBe(200);
      expect(stream.frames.at(-1)).toMatchObject({ id: '102', status: 'completed', progress: 100 });
    }

    const list = await request(nginx.url).get('/v1/transcriptions?limit=100').set(bearer(apiKey));
    expectMatchesSpec(list, 'listTranscriptions');
    expect((list.body.data as Array<{ id: string; status: string }>).map((item) => item.status)).toEqual(
      ids.map(() => 'completed'),
    );

    // Billed once: one charge per job; one transcription.completed event per job, delivered once.
    const charges = await dataSource.query<Array<{ transcription_id: string; count: string }>>(
      `SELECT transcription_id, count(*) AS count FROM balance_ledger
        WHERE kind = 'charge' AND transcription_id = ANY($1) GROUP BY transcription_id`,
      [ids],
    );
    expect(charges.map((row) => [row.transcription_id, Number(row.count)]).sort()).toEqual(
      [...ids].sort().map((id) => [id, 1]),
    );
    const delivered = await eventually(
      'a webhook delivery per job',
      async () => {
        const mine = receiver
          .of('transcription.completed')
          .filter((hit) => hit.path === `/lb-${workspaceId}`);
        return mine.length >= ids.length ? mine : null;
      },
      60_000,
    );
    // Nothing more comes: every delivery is recorded delivered in PostgreSQL (the workers' reconcilers re-send
    // only those that are not).
    await eventually(
      'every delivery of the workspace recorded delivered',
      async () => {
        const rows = await dataSource.query<Array<{ status: string }>>(
          `SELECT d.status FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
            WHERE e.workspace_id = $1`,
          [workspaceId],
        );
        return rows.length === ids.length && rows.every((row) => row.status === 'delivered');
      },
      30_000,
    );
    const completedEvents = await dataSource.query<Array<{ count: string }>>(
      `SELECT count(*) AS count FROM outbox_events WHERE type = 'transcription.completed' AND data->>'id' = ANY($1)`,
      [ids],
    );
    expect(Number(completedEvents[0].count)).toBe(ids.length);
    const received = receiver
      .of('transcription.completed')
      .filter((hit) => hit.path === `/lb-${workspaceId}`);
    expect(received.map((hit) => hit.body.data.id).sort()).toEqual([...ids].sort());
    expect(new Set(received.map((hit) => hit.deliveryId)).size).toBe(ids.length);
    for (const hit of delivered)
      expectWebhookMatchesSpec({ headers: hit.headers, body: hit.body }, hit.body.event);

    // Run once: the two workers' own counters add up to one completed attempt per job; both took part.
    const perWorker = await Promise.all(
      workers.map(async ({ metricsUrl }) => {
        const scraped = await request(metricsUrl).get('/metrics').set(bearer(METRICS_TOKEN));
        expect(scraped.status).toBe(200);
        return scraped.text;
      }),
    );
    const completedPerWorker = perWorker.map((text) =>
      sumSamples(text, 'stt_transcription_job_attempts_total', ['outcome="completed"']),
    );
    expect(completedPerWorker.reduce((a, b) => a + b, 0)).toBe(ids.length);
    for (const text of perWorker) {
      expect(sumSamples(text, 'stt_transcription_job_attempts_total', ['outcome="discarded"'])).toBe(0);
      expect(sumSamples(text, 'stt_transcription_job_attempts_total', ['outcome="retried"'])).toBe(0);
    }
    expect(completedPerWorker.every((count) => count > 0)).toBe(true);
    // Queue depth is read from the shared Redis: both APIs report the same, drained, queue.
    const metricsIds = [requestId(), requestId()];
    for (const id of metricsIds) {
      const text = (
        await request(nginx.url)
          .get('/metrics')
          .set({ ...bearer(METRICS_TOKEN), 'X-Request-Id': id })
      ).text;
      expect(text).toContain('stt_queue_jobs{queue="transcriptions",state="waiting"} 0');
      expect(text).toContain('stt_queue_jobs{queue="transcriptions",state="active"} 0');
    }
    expect(new Set(await Promise.all(metricsIds.map(servedBy))).size).toBe(2);
  });

  it('an upload retried with its Idempotency-Key on the other API gets the same answer and makes no second job', async () => {
    const { apiKey, workspaceId } = await provisioning.createWorkspace({ name: 'Load-balanced retries' });
    const upload = (key: string, id: string) =>
      request(nginx.url)
        .post('/v1/transcriptions')
        .set({ ...bearer(apiKey), 'Idempotency-Key': key, 'X-Request-Id': id })
        .attach('file', testAudio('pocketsphinx/goforward.wav'));
    const key = randomUUID();
    const [firstId, retryId] = [requestId(), requestId()];
    const first = await upload(key, firstId);
    const retry = await upload(key, retryId);
    expect(await servedBy(retryId)).not.toBe(await servedBy(firstId));
    expectMatchesSpec(first, 'createTranscription');
    expectMatchesSpec(retry, 'createTranscription');
    expect(first.status).toBe(202);
    expect({ status: retry.status, body: retry.text }).toEqual({ status: 202, body: first.text });

    // Two at once with one key, one on each API: one job; the other answer is the replay or a 409 with
    // Retry-After (the first still holds the key), never a second job.
    const racingKey = randomUUID();
    const racingIds = [requestId(), requestId()];
    const racing = await Promise.all(racingIds.map((id) => upload(racingKey, id)));
    expect(new Set(await Promise.all(racingIds.map(servedBy))).size).toBe(2);
    for (const response of racing) {
      expectMatchesSpec(response, 'createTranscription');
      expect([202, 409]).toContain(response.status);
      if (response.status === 409) expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    const accepted = racing.filter((response) => response.status === 202);
    expect(new Set(accepted.map((response) => response.body.data.id as string)).size).toBe(1);

    const rows = await provisioning.app
      .get(DataSource)
      .query<Array<{ count: string }>>(
        'SELECT count(*) AS count FROM transcriptions WHERE workspace_id = $1',
        [workspaceId],
      );
    expect(Number(rows[0].count)).toBe(2);
  });

  it('uploads stream through nginx: a too large one is refused by the API (its 422 problem) before the body is sent, never a 502', async () => {
    const { apiKey } = await provisioning.createWorkspace({ name: 'Load-balanced large upload' });
    // Refused from the head (declared size), while the body is still coming: a process that closed on the body's
    // rest would reset the connection nginx is still writing to (a 502, and the process out of rotation).
    for (let attempt = 0; attempt < 10; attempt++) {
      const outcome = await streamedUpload(nginx.port, bearer(apiKey), 600 * 1024 * 1024, 64 * 1024 * 1024);
      expect({ status: outcome.status, type: outcome.headers['content-type'] }).toEqual({
        status: 422,
        type: expect.stringMatching(/^application\/problem\+json/),
      });
      expect((JSON.parse(outcome.body) as { type: string }).type).toMatch(/\/file-too-large$/);
      expect(outcome.clientBytesSent).toBeLessThan(64 * 1024 * 1024);
    }
    // Both processes are still in rotation.
    const ids = [requestId(), requestId()];
    for (const id of ids) {
      expect((await request(nginx.url).get('/v1/languages').set('X-Request-Id', id)).status).toBe(200);
    }
    expect(new Set(await Promise.all(ids.map(servedBy))).size).toBe(2);
  });

  it('the rate limit and the sign-in throttle are one budget across both APIs, not one per API', async () => {
    const { apiKey } = await provisioning.createWorkspace({ name: 'Load-balanced limits' });
    const remaining: number[] = [];
    const servers = new Set<number>();
    for (let call = 0; call < RATE_LIMIT; call += 1) {
      const id = requestId();
      const response = await request(nginx.url)
        .get('/v1/account/balance')
        .set({ ...bearer(apiKey), 'X-Request-Id': id });
      expect(response.status).toBe(200);
      remaining.push(Number(response.headers['x-ratelimit-remaining']));
      servers.add(await servedBy(id));
    }
    expect(servers.size).toBe(2);
    expect(remaining).toEqual(Array.from({ length: RATE_LIMIT }, (_, call) => RATE_LIMIT - call - 1));
    const refusedIds = [requestId(), requestId()];
    for (const id of refusedIds) {
      const refused = await request(nginx.url)
        .get('/v1/account/balance')
        .set({ ...bearer(apiKey), 'X-Request-Id': id });
      expect(refused.status).toBe(429);
      expectMatchesSpec(refused, 'getBalance');
      expect(refused.body.type).toMatch(/\/rate-limit$/);
    }
    expect(new Set(await Promise.all(refusedIds.map(servedBy))).size).toBe(2);

    // Wrong passwords from one client, alternating between the APIs: refused after the same count as one API.
    const user = await createUserWithPassword(provisioning, PASSWORD);
    const login = (password: string, client: string, id: string) =>
      request(nginx.url)
        .post('/v1/auth/login')
        .set({ 'X-Forwarded-For': client, 'X-Request-Id': id })
        .send({ email: user.email, password });
    const attacker = '203.0.113.7';
    const statuses: number[] = [];
    const attemptIds: string[] = [];
    for (let attempt = 0; attempt <= LOGIN_FAILURES_PER_CLIENT; attempt++) {
      const id = requestId();
      attemptIds.push(id);
      const response = await login('not the password', attacker, id);
      expectMatchesSpec(response, 'login');
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array<number>(LOGIN_FAILURES_PER_CLIENT).fill(401), 429]);
    expect(new Set(await Promise.all(attemptIds.map(servedBy))).size).toBe(2);
    // The per-client count is the attacker's: the owner from elsewhere signs in.
    expect((await login(PASSWORD, '198.51.100.4', requestId())).status).toBe(200);
  });

  it('the dashboard signs in on one API and goes on with its cookies on the other: profile, refresh', async () => {
    const user = await createUserWithPassword(provisioning, PASSWORD);
    const client = '198.51.100.23';
    const page = await request(nginx.url).get('/app/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);

    const ids = [requestId(), requestId(), requestId(), requestId()];
    const signedIn = await request(nginx.url)
      .post('/v1/auth/login')
      .set({ 'X-Forwarded-For': client, 'X-Request-Id': ids[0] })
      .send({ email: user.email, password: PASSWORD });
    expectMatchesSpec(signedIn, 'login');
    expect(signedIn.status).toBe(200);
    const profile = await request(nginx.url)
      .get('/v1/account/profile')
      .set({ Cookie: `stt_session=${cookieValue(signedIn, 'stt_session')}`, 'X-Request-Id': ids[1] });
    expectMatchesSpec(profile, 'getProfile');
    expect(profile.body.data.id).toBe(user.userId);

    const refreshed = await request(nginx.url)
      .post('/v1/auth/refresh')
      .set({ Cookie: `stt_refresh=${cookieValue(signedIn, 'stt_refresh')}`, 'X-Request-Id': ids[2] });
    expectMatchesSpec(refreshed, 'refreshSession');
    expect(refreshed.status).toBe(200);
    expect(cookieValue(refreshed, 'stt_refresh')).not.toBe(cookieValue(signedIn, 'stt_refresh'));
    const withNewToken = await request(nginx.url)
      .get('/v1/account/profile')
      .set({ ...bearer(refreshed.body.data.accessToken as string), 'X-Request-Id': ids[3] });
    expect(withNewToken.status).toBe(200);

    const servers = await Promise.all(ids.map(servedBy));
    expect(servers[1]).not.toBe(servers[0]);
    expect(servers[2]).not.toBe(servers[1]);

    // Signing out on one API ends the sign-in on both at once: the refresh token and the access token.
    const outIds = [requestId(), requestId(), requestId()];
    const signedOut = await request(nginx.url)
      .post('/v1/auth/logout')
      .set({ Cookie: `stt_refresh=${cookieValue(refreshed, 'stt_refresh')}`, 'X-Request-Id': outIds[0] });
    expect(signedOut.status).toBe(204);
    const refreshAfter = await request(nginx.url)
      .post('/v1/auth/refresh')
      .set({ Cookie: `stt_refresh=${cookieValue(refreshed, 'stt_refresh')}`, 'X-Request-Id': outIds[1] });
    expect(refreshAfter.status).toBe(401);
    const tokenAfter = await request(nginx.url)
      .get('/v1/account/profile')
      .set({ ...bearer(refreshed.body.data.accessToken as string), 'X-Request-Id': outIds[2] });
    expect(tokenAfter.status).toBe(401);
    expectMatchesSpec(tokenAfter, 'getProfile');
    const afterServers = await Promise.all(outIds.map(servedBy));
    expect(afterServers[1]).not.toBe(afterServers[0]);
    expect(afterServers[2]).not.toBe(afterServers[1]);

    // nginx's access log holds no credential: they travel in headers, which its format leaves out.
    const log = readFileSync(nginx.accessLogPath, 'utf8');
    for (const secret of [
      signedIn.body.data.accessToken as string,
      cookieValue(signedIn, 'stt_refresh'),
      refreshed.body.data.accessToken as string,
      PASSWORD,
    ]) {
      expect(log.includes(secret)).toBe(false);
    }
  });

  it('realtime WebSockets upgrade through nginx on both APIs; SIGTERM to one closes only its session (1001), and clients go on through nginx', async () => {
    const { apiKey } = await provisioning.createWorkspace({
      name: 'Load-balanced realtime',
      balanceEur: 5,
      freeTranscriptions: 0,
    });
    const audio = rawAudio(testAudio('pocketsphinx/goforward.wav'), 's16le', 24000);
    const socketIds = [requestId(), requestId()];
    const sessions = socketIds.map((id) =>
      RealtimeTestClient.connect(nginx.port, { ...bearer(apiKey), 'X-Request-Id': id }),
    );
    const transcriptions: string[] = [];
    for (const session of sessions) {
      await session.opened;
      transcriptions.push(await session.transcriptionId());
      await session.stream(audio, 48000, { chunkMs: 250, paced: false });
      session.send({ type: 'input_audio_buffer.commit' });
      const completed = await session.next('conversation.item.input_audio_transcription.completed');
      expect(String(completed.transcript)).toMatch(/forward/i);
    }

    // Traffic through nginx while API #1 drains and exits: every answer comes from the other API, none is a 502.
    const stopping = apis[0].process.terminate('SIGTERM');
    let exited = false;
    void stopping.then(() => (exited = true));
    const statuses: number[] = [];
    while (!exited) {
      statuses.push((await request(nginx.url).get('/v1/languages')).status);
    }
    expect(await stopping).toEqual({ code: 0, signal: null });
    expect(new Set(statuses)).toEqual(new Set([200]));

    // Exactly one session was on API #1: it was closed as the server shut down; the other goes on.
    await eventually(
      'a session closed by the drain',
      async () => sessions.some((session) => session.closed),
      30_000,
      50,
    );
    const [drained, surviving] = sessions[0].closed ? sessions : [sessions[1], sessions[0]];
    expect(drained.closed).toEqual({ code: 1001, reason: 'server_shutting_down' });
    expect(surviving.closed).toBeNull();
    surviving.send({ type: 'input_audio_buffer.clear' });
    await surviving.stream(audio, 48000, { chunkMs: 250, paced: false });
    surviving.send({ type: 'input_audio_buffer.commit' });
    await surviving.next('conversation.item.input_audio_transcription.completed', 2);
    surviving.socket.close();
    await surviving.whenClosed();
    const drainedTranscription = drained === sessions[0] ? transcriptions[0] : transcriptions[1];
    const drainedSocket = drained === sessions[0] ? socketIds[0] : socketIds[1];
    const survivingSocket = drained === sessions[0] ? socketIds[1] : socketIds[0];
    expect(await servedBy(drainedSocket)).toBe(apis[0].port);
    expect(await servedBy(survivingSocket)).toBe(apis[1].port);
    // The drained session was stored and billed like any ended session.
    const drainedSession = await request(nginx.url)
      .get(`/v1/transcriptions/${drainedTranscription}`)
      .set(bearer(apiKey));
    expectMatchesSpec(drainedSession, 'getTranscription');
    expect(drainedSession.body.data.status).toBe('completed');
    expect(drainedSession.body.data.cost).toBeGreaterThan(0);
    expect(readFileSync(nginx.accessLogPath, 'utf8').includes(apiKey)).toBe(false);

    // A client reconnecting after the drain is upgraded by the API that is left.
    const reconnectId = requestId();
    const reconnected = RealtimeTestClient.connect(nginx.port, {
      ...bearer(apiKey),
      'X-Request-Id': reconnectId,
    });
    await reconnected.next('session.created');
    reconnected.socket.close();
    await reconnected.whenClosed();
    expect(await servedBy(reconnectId)).toBe(apis[1].port);
  });
});
