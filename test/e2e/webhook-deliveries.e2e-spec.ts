import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { LedgerService } from '../../src/billing/ledger.service';
import { WebhookDelivery } from '../../src/webhooks/webhook-delivery.entity';
import { deliveryJobId } from '../../src/webhooks/webhook-delivery-queue.service';
import { WebhookDeliveryProcessor } from '../../src/webhooks/webhook-delivery.processor';
import { OutboxEvent } from '../../src/webhooks/outbox-event.entity';
import { eventually } from '../support/eventually';
import { expectMatchesSpec, expectWebhookMatchesSpec } from '../support/openapi-contract';
import { QueryRows, QueueInspector, waitUntilSettled, watchScheduledRetries } from '../support/settled-work';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { RedisConfig } from '../../src/common/redis/redis.config';

const JFK = testAudio('whisper.cpp/jfk.wav');

/** One request as the receiving third party saw it: raw bytes, headers, arrival time. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  arrivedAt: number;
}

type Answer = { status: number; delayMs?: number; location?: string };

/** A real HTTP server on 127.0.0.1 (random port) that answers per path and per request number. */
class Receiver {
  readonly requests: Received[] = [];
  private server!: Server;
  private readonly answers = new Map<string, (requestNumber: number) => Answer>();
  private readonly pendingTimers = new Set<NodeJS.Timeout>();

  answer(path: string, how: (requestNumber: number) => Answer): void {
    this.answers.set(path, how);
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  to(path: string): Received[] {
    return this.requests.filter((request) => request.path === path);
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const arrivedAt = Date.now();
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        const received = {
          path,
          headers: request.headers,
          rawBody: Buffer.concat(chunks).toString('utf8'),
          arrivedAt,
        };
        this.requests.push(received);
        const how = this.answers.get(path) ?? ((): Answer => ({ status: 200 }));
        const { status, delayMs = 0, location } = how(this.to(path).length);
        const headers = { 'Content-Type': 'text/plain', ...(location ? { Location: location } : {}) };
        const timer = setTimeout(() => {
          this.pendingTimers.delete(timer);
          if (!response.destroyed) response.writeHead(status, headers).end('ok');
        }, delayMs);
        this.pendingTimers.add(timer);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    for (const timer of this.pendingTimers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The receiver-side check, written here independently of the service's signer. */
function verifySignature(received: Received, secret: string): void {
  const timestamp = received.headers['x-service-timestamp'];
  const signature = received.headers['x-service-signature'];
  expect(typeof timestamp).toBe('string');
  expect(typeof signature).toBe('string');
  const expected = createHmac('sha256', secret)
    .update(`${timestamp as string}.`)
    .update(received.rawBody)
    .digest();
  const given = Buffer.from(signature as string, 'hex');
  expect(given.length).toBe(expected.length);
  expect(timingSafeEqual(given, expected)).toBe(true);
  expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(300);
  const envelope = JSON.parse(received.rawBody) as { timestamp: string };
  expect(envelope.timestamp).toBe(timestamp);
}

function expectDeliveryMatchesSpec(received: Received, event: string): void {
  expectWebhookMatchesSpec({ headers: received.headers, body: received.rawBody }, event);
}

describe('Webhook deliveries', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let queues: QueueInspector;
  const receiver = new Receiver();
  const query: QueryRows = (sql, values) => dataSource.query(sql, values);

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    dataSource = t.app.get(DataSource);
    queues = new QueueInspector(t.config.get(RedisConfig).REDIS_URL, t.config.get(RedisConfig).REDIS_PREFIX);
  });
  afterAll(async () => {
    await queues.close();
    await t.close();
    await receiver.stop();
  });

  async function register(apiKey: string, path: string, events: string[]) {
    const response = await t
      .http()
      .post('/v1/webhooks')
      .set(bearer(apiKey))
      .send({ url: receiver.url(path), events });
    expect(response.status).toBe(201);
    expectMatchesSpec(response, 'createWebhook');
    return response.body.data as { id: string; secret: string };
  }

  const deliveriesOf = (eventId: string) =>
    dataSource.getRepository(WebhookDelivery).find({ where: { eventId }, order: { createdOn: 'ASC' } });

  it(
    'signs and delivers balance.low; retries 500 after ~5 s and ~10 s; one attempt on 410; a timeout is a failed ' +
      'attempt; a 302 is a failed attempt and is not followed; nothing to unsubscribed, inactive or deleted endpoints',
    async () => {
      const workspace = await t.createWorkspace({
        name: 'Hooks delivery',
        balanceEur: 1.5,
        lowBalanceThresholdEur: 1,
      });
      receiver.answer('/ok', () => ({ status: 200 }));
      receiver.answer('/error-500', () => ({ status: 500 }));
      receiver.answer('/gone-410', () => ({ status: 410 }));
      receiver.answer('/redirect-302', () => ({ status: 302, location: receiver.url('/redirect-target') }));
      // First answer comes after the 10 s deadline; the retry is answered at once.
      receiver.answer('/slow', (n) => (n === 1 ? { status: 200, delayMs: 11_000 } : { status: 200 }));
      const ok = await register(workspace.apiKey, '/ok', ['balance.low', 'transcription.completed']);
      const failing = await register(workspace.apiKey, '/error-500', ['balance.low']);
      const gone = await register(workspace.apiKey, '/gone-410', ['balance.low']);
      const slow = await register(workspace.apiKey, '/slow', ['balance.low']);
      const redirecting = await register(workspace.apiKey, '/redirect-302', ['balance.low']);
      await register(workspace.apiKey, '/unsubscribed', ['transcription.failed', 'transcription.completed']);
      const inactive = await register(workspace.apiKey, '/inactive', ['balance.low']);
      await dataSource.query('UPDATE webhook_endpoints SET is_active = false WHERE id = $1', [inactive.id]);
      const deleted = await register(workspace.apiKey, '/deleted', ['balance.low']);
      const deletion = await t.http().delete(`/v1/webhooks/${deleted.id}`).set(bearer(workspace.apiKey));
      expect(deletion.status).toBe(204);
      expectMatchesSpec(deletion, 'deleteWebhook');

      // 1.50 → 0.90 EUR crosses the 1.00 EUR threshold: one balance.low in the ledger's transaction.
      const retries = watchScheduledRetries(queues);
      const ledger = t.app.get(LedgerService);
      await ledger.post({ workspaceId: workspace.workspaceId, kind: 'adjustment', amountMicro: -600_000 });
      const events = await dataSource
        .getRepository(OutboxEvent)
        .find({ where: { workspaceId: workspace.workspaceId } });
      expect(events).toHaveLength(1);
      const event = events[0];
      expect(event.type).toBe('balance.low');
      expect(event.data).toEqual({ balance: 0.9, threshold: 1, currency: 'EUR' });

      const finished = await eventually(
        'every delivery of the event ending',
        async () => {
          const rows = await deliveriesOf(event.id);
          return rows.length === 5 && rows.every((row) => row.status !== 'pending') && rows;
        },
        45_000,
      );
      await retries.stop();
      const byEndpoint = new Map(finished.map((row) => [row.endpointId, row]));
      // The waits the service scheduled: 5 s before the second attempt, 10 s before the third.
      const scheduled = (endpointId: string, attempt: number) =>
        retries.delays.get(deliveryJobId(byEndpoint.get(endpointId)?.id ?? '', attempt));

      // The 2xx endpoint: one request, signed, with the documented headers and envelope.
      const [delivered] = receiver.to('/ok');
      expect(receiver.to('/ok')).toHaveLength(1);
      expectDeliveryMatchesSpec(delivered, 'balance.low');
      verifySignature(delivered, ok.secret);
      expect(delivered.headers['content-type']).toBe('application/json');
      expect(delivered.headers['x-service-delivery-id']).toBe(byEndpoint.get(ok.id)?.id);
      expect(JSON.parse(delivered.rawBody)).toEqual({
        event: 'balance.low',
        timestamp: delivered.headers['x-service-timestamp'],
        data: { balance: 0.9, threshold: 1, currency: 'EUR' },
      });
      expect(byEndpoint.get(ok.id)).toMatchObject({ status: 'delivered', completedOn: expect.any(Date) });
      expect(byEndpoint.get(ok.id)?.attempts).toEqual([
        { at: expect.any(String), durationMs: expect.any(Number), statusCode: 200, error: null },
      ]);

      // 500 three times: retries scheduled 5 s and 10 s out, never sooner (how much later depends on the
      // machine's load, so no upper bound), the same delivery id, each signed afresh.
      const attempts500 = receiver.to('/error-500');
      expect(attempts500).toHaveLength(3);
      expect([scheduled(failing.id, 2), scheduled(failing.id, 3)]).toEqual([5_000, 10_000]);
      const gaps = [
        attempts500[1].arrivedAt - attempts500[0].arrivedAt,
        attempts500[2].arrivedAt - attempts500[1].arrivedAt,
      ];
      console.log(`measured retry gaps after 500: ${gaps.map((gap) => `${gap} ms`).join(', ')}`);
      expect(gaps[0]).toBeGreaterThanOrEqual(4_500);
      expect(gaps[1]).toBeGreaterThanOrEqual(9_500);
      for (const retry of attempts500) {
        expectDeliveryMatchesSpec(retry, 'balance.low');
        verifySignature(retry, failing.secret);
        expect(retry.headers['x-service-delivery-id']).toBe(byEndpoint.get(failing.id)?.id);
      }
      const failedRow = byEndpoint.get(failing.id);
      expect(failedRow?.status).toBe('failed');
      expect(failedRow?.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 500]);
      expect(failedRow?.attempts.every((attempt) => attempt.durationMs >= 0)).toBe(true);

      // 410: exactly one attempt, then failed.
      expect(receiver.to('/gone-410')).toHaveLength(1);
      expectDeliveryMatchesSpec(receiver.to('/gone-410')[0], 'balance.low');
      verifySignature(receiver.to('/gone-410')[0], gone.secret);
      expect(byEndpoint.get(gone.id)?.status).toBe('failed');
      expect(byEndpoint.get(gone.id)?.attempts.map((attempt) => attempt.statusCode)).toEqual([410]);

      // Timeout: the first attempt is recorded as failed without a status, the retry ~5 s after it delivers.
      const slowRow = byEndpoint.get(slow.id);
      expect(slowRow?.status).toBe('delivered');
      expect(slowRow?.attempts).toHaveLength(2);
      expect(slowRow?.attempts[0]).toMatchObject({
        statusCode: null,
        error: expect.stringMatching(/timeout/),
      });
      // Cut by the 10 s deadline: the receiver's answer would only have come at 11 s.
      expect(slowRow?.attempts[0].durationMs).toBeGreaterThanOrEqual(9_900);
      expect(slowRow?.attempts[1]).toMatchObject({ statusCode: 200, error: null });
      expect(scheduled(slow.id, 2)).toBe(5_000);
      const slowRequests = receiver.to('/slow');
      expect(slowRequests).toHaveLength(2);
      const slowGap = slowRequests[1].arrivedAt - slowRequests[0].arrivedAt;
      console.log(`measured gap after a timeout: ${slowGap} ms (10 s deadline + 5 s wait)`);
      expect(slowGap).toBeGreaterThanOrEqual(14_500);
      for (const request of slowRequests) verifySignature(request, slow.secret);

      // 302: a failed attempt like any non-2xx (retried), the Location is never requested.
      expect(receiver.to('/redirect-302')).toHaveLength(3);
      expect(receiver.to('/redirect-target')).toHaveLength(0);
      expect(byEndpoint.get(redirecting.id)?.status).toBe('failed');
      expect(byEndpoint.get(redirecting.id)?.attempts.map((attempt) => attempt.statusCode)).toEqual([
        302, 302, 302,
      ]);

      // Not subscribed, inactive, deleted: no row, no request.
      expect(receiver.to('/unsubscribed')).toHaveLength(0);
      expect(receiver.to('/inactive')).toHaveLength(0);
      expect(receiver.to('/deleted')).toHaveLength(0);
      expect(finished.map((row) => row.endpointId).sort()).toEqual(
        [ok.id, failing.id, gone.id, slow.id, redirecting.id].sort(),
      );

      // Still below the threshold: disarmed, a further drop records nothing.
      await ledger.post({ workspaceId: workspace.workspaceId, kind: 'adjustment', amountMicro: -100_000 });
      expect(
        await dataSource.getRepository(OutboxEvent).count({ where: { workspaceId: workspace.workspaceId } }),
      ).toBe(1);
    },
    60_000,
  );

  it('delivers transcription.completed exactly once after a real upload, with the record’s fields', async () => {
    const workspace = await t.createWorkspace({
      name: 'Hooks transcription',
      balanceEur: 5,
      freeTranscriptions: 0,
    });
    const hook = await register(workspace.apiKey, '/transcriptions', [
      'transcription.completed',
      'transcription.failed',
    ]);
    const created = await t
      .http()
      .post('/v1/transcriptions')
      .set(bearer(workspace.apiKey))
      .attach('file', JFK);
    expect(created.status).toBe(202);
    expectMatchesSpec(created, 'createTranscription');
    const id = created.body.data.id as string;

    await eventually(
      'the transcription finishing',
      async () => {
        const status = await t.http().get(`/v1/transcriptions/${id}/status`).set(bearer(workspace.apiKey));
        expectMatchesSpec(status, 'getTranscriptionStatus');
        return ['completed', 'failed'].includes(status.body.data.status as string);
      },
      90_000,
    );
    const detail = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(workspace.apiKey));
    expectMatchesSpec(detail, 'getTranscription');
    expect(detail.body.data.status).toBe('completed');

    const [received] = await eventually(
      'the delivery',
      async () => receiver.to('/transcriptions').length > 0 && receiver.to('/transcriptions'),
      15_000,
    );
    // "Exactly once" only after nothing is left that could send again: the job ended, the outbox is
    // dispatched, every delivery is final and no delivery job of the workspace is waiting, delayed or running.
    await waitUntilSettled(query, queues, workspace.workspaceId, 30_000);
    expect(receiver.to('/transcriptions')).toHaveLength(1);
    expectDeliveryMatchesSpec(received, 'transcription.completed');
    verifySignature(received, hook.secret);
    const envelope = JSON.parse(received.rawBody) as { event: string; data: Record<string, unknown> };
    expect(envelope.event).toBe('transcription.completed');
    const record = detail.body.data as Record<string, unknown>;
    expect(envelope.data).toEqual({
      id,
      model: 'standard',
      status: 'completed',
      duration: record.duration,
      wordCount: expect.any(Number),
      speakerCount: expect.any(Number),
      language: expect.any(String),
      cost: record.cost,
      completedAt: expect.any(String),
      metadata: {}, // none given at upload: always present, so receivers need no null check
    });
    expect(envelope.data.duration as number).toBeGreaterThan(10);
    expect(envelope.data.wordCount as number).toBeGreaterThan(0);
    expect(envelope.data.cost).toBeCloseTo(0.00055, 8); // 11 s × 50 micro-EUR
    const rows = await dataSource
      .getRepository(OutboxEvent)
      .find({ where: { workspaceId: workspace.workspaceId } });
    expect(rows.map((row) => row.type)).toEqual(['transcription.completed']);
  }, 120_000);

  it('re-enqueues a pending delivery that has no job (Redis flushed, worker killed)', async () => {
    const workspace = await t.createWorkspace({
      name: 'Hooks reconcile',
      balanceEur: 2,
      lowBalanceThresholdEur: 1,
    });
    const hook = await register(workspace.apiKey, '/reconciled', ['balance.low']);
    // An event and its delivery row as a crashed dispatcher would leave them: dispatched, never enqueued.
    const event = await dataSource.getRepository(OutboxEvent).save(
      dataSource.getRepository(OutboxEvent).create({
        workspaceId: workspace.workspaceId,
        type: 'balance.low',
        dedupeKey: `balance.low:test-reconcile:${workspace.workspaceId}`,
        data: { balance: 0.5, threshold: 1, currency: 'EUR' },
        dispatchedOn: new Date(),
      }),
    );
    const delivery = await dataSource
      .getRepository(WebhookDelivery)
      .save(dataSource.getRepository(WebhookDelivery).create({ eventId: event.id, endpointId: hook.id }));
    await t.app.get(WebhookDeliveryProcessor).reconcile();
    const [received] = await eventually(
      'the reconciled delivery',
      async () => receiver.to('/reconciled').length > 0 && receiver.to('/reconciled'),
      10_000,
    );
    expect(received.headers['x-service-delivery-id']).toBe(delivery.id);
    expectDeliveryMatchesSpec(received, 'balance.low');
    verifySignature(received, hook.secret);
    await eventually(
      'the delivery being recorded',
      async () =>
        (await dataSource.getRepository(WebhookDelivery).findOneBy({ id: delivery.id }))?.status ===
        'delivered',
      5_000,
    );
  });
});

describe('Webhook deliveries with the production address policy (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)', () => {
  let t: TestApp;
  let dataSource: DataSource;
  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  it('retries a host name that does not resolve at delivery time; an address the policy refuses fails at once', async () => {
    const workspace = await t.createWorkspace({
      name: 'Hooks DNS',
      balanceEur: 1.5,
      lowBalanceThresholdEur: 1,
    });
    const register = async () => {
      const response = await t
        .http()
        .post('/v1/webhooks')
        .set(bearer(workspace.apiKey))
        .send({ url: 'https://93.184.216.34/hook', events: ['balance.low'] });
      expect(response.status).toBe(201);
      expectMatchesSpec(response, 'createWebhook');
      return response.body.data.id as string;
    };
    // Registered while valid; later the name stops resolving (.invalid never resolves, RFC 6761), or the
    // stored address is one the policy refuses (6to4 of 127.0.0.1).
    const unresolvable = await register();
    const refused = await register();
    await dataSource.query('UPDATE webhook_endpoints SET url = $1 WHERE id = $2', [
      'https://does-not-exist.invalid/hook',
      unresolvable,
    ]);
    await dataSource.query('UPDATE webhook_endpoints SET url = $1 WHERE id = $2', [
      'https://[2002:7f00:1::]/hook',
      refused,
    ]);

    await t.app
      .get(LedgerService)
      .post({ workspaceId: workspace.workspaceId, kind: 'adjustment', amountMicro: -600_000 });

    const deliveryTo = (endpointId: string) =>
      dataSource.getRepository(WebhookDelivery).findOneBy({ endpointId });
    const retried = await eventually(
      'a second attempt to the unresolvable host',
      async () => {
        const delivery = await deliveryTo(unresolvable);
        return delivery && delivery.attempts.length >= 2 && delivery;
      },
      20_000,
    );
    for (const attempt of retried.attempts.slice(0, 2)) {
      expect(attempt).toMatchObject({
        statusCode: null,
        error: expect.stringMatching(/^dns failure: .*(ENOTFOUND|EAI_AGAIN)/),
      });
    }
    const refusal = await deliveryTo(refused);
    expect(refusal?.status).toBe('failed');
    expect(refusal?.attempts).toEqual([
      {
        at: expect.any(String),
        durationMs: expect.any(Number),
        statusCode: null,
        error: expect.stringMatching(/^refused: url resolves to 2002:7f00:1::/),
      },
    ]);
  }, 40_000);
});
