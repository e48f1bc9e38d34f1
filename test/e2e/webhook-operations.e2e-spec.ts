import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { OutboxEvent } from '../../src/webhooks/outbox-event.entity';
import { expectMatchesSpec, expectWebhookMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

/** One request as the receiving third party saw it. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

/** A real HTTP server on 127.0.0.1 that answers 200 to everything and keeps what it got. */
class Receiver {
  readonly requests: Received[] = [];
  private server!: Server;

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  to(path: string): Received[] {
    return this.requests.filter((request) => request.path === path);
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.requests.push({
          path: request.url ?? '/',
          headers: request.headers,
          rawBody: Buffer.concat(chunks).toString('utf8'),
        });
        response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The receiver-side check of the one signature header, written independently of the service's signer. */
function signatureValid(signature: string | undefined, timestamp: string, rawBody: string, secret: string) {
  if (typeof signature !== 'string') return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function header(received: Received, name: string): string | undefined {
  const value = received.headers[name];
  return typeof value === 'string' ? value : undefined;
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not happen within ${ms} ms`);
}

const validation = 'https://errors.transcription.example/problems/validation';
const notFound = 'https://errors.transcription.example/problems/not-found';

describe('Webhook operations', () => {
  let t: TestApp;
  let dataSource: DataSource;
  const receiver = new Receiver();
  let mine: { apiKey: string; userId: string; workspaceId: string };
  let theirs: { apiKey: string; workspaceId: string };

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    dataSource = t.app.get(DataSource);
    mine = await t.createWorkspace({ name: 'Ops mine' });
    theirs = await t.createWorkspace({ name: 'Ops theirs' });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  async function register(path: string, events: string[] = ['balance.low'], key = mine.apiKey) {
    const response = await t
      .http()
      .post('/v1/webhooks')
      .set(bearer(key))
      .send({ url: receiver.url(path), events });
    expect(response.status).toBe(201);
    return response.body.data as { id: string; secret: string };
  }

  async function deliveriesOf(endpointId: string, query = '') {
    const response = await t.http().get(`/v1/webhooks/${endpointId}/deliveries${query}`).set(bearer(mine.apiKey));
    expectMatchesSpec(response, 'listWebhookDeliveries');
    return response;
  }

  describe('PATCH /v1/webhooks/{id}', () => {
    it('changes url, events and isActive, partially, and never returns the secret', async () => {
      const { id, secret } = await register('/patch-a');
      const events = await t
        .http()
        .patch(`/v1/webhooks/${id}`)
        .set(bearer(mine.apiKey))
        .send({ events: ['transcription.completed', 'balance.low'] });
      expect(events.status).toBe(200);
      expect(events.body.data).toEqual({
        id,
        url: receiver.url('/patch-a'),
        events: ['transcription.completed', 'balance.low'],
        isActive: true,
        createdOn: expect.any(String),
      });
      expectMatchesSpec(events, 'updateWebhook');
      // With a JWT as well.
      const both = await t
        .http()
        .patch(`/v1/webhooks/${id}`)
        .set(bearer(t.issueToken(mine.userId)))
        .send({ url: receiver.url('/patch-b'), isActive: false });
      expect(both.status).toBe(200);
      expect(both.body.data).toMatchObject({
        url: receiver.url('/patch-b'),
        events: ['transcription.completed', 'balance.low'],
        isActive: false,
      });
      expect(JSON.stringify(both.body)).not.toContain(secret);
      expectMatchesSpec(both, 'updateWebhook');
      const list = await t.http().get('/v1/webhooks').set(bearer(mine.apiKey));
      expect(list.body.data.find((e: { id: string }) => e.id === id)).toMatchObject({ isActive: false });
    });

    it.each([
      ['an empty body', {}],
      ['an unknown member', { isActive: true, colour: 'red' }],
      ['an ftp URL', { url: 'ftp://example.org/x' }],
      ['empty events', { events: [] }],
      ['an unknown event', { events: ['webhook.test'] }],
      ['a non-boolean isActive', { isActive: 'yes' }],
    ])('refuses %s with 422 validation', async (_case, body) => {
      const { id } = await register('/patch-refused');
      const response = await t.http().patch(`/v1/webhooks/${id}`).set(bearer(mine.apiKey)).send(body);
      expect(response.status).toBe(422);
      expect(response.body.type).toBe(validation);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expectMatchesSpec(response, 'updateWebhook');
      await t.http().delete(`/v1/webhooks/${id}`).set(bearer(mine.apiKey));
    });

    it.each([
      ['events', { events: null }],
      ['isActive', { isActive: null }],
      ['url', { url: null }],
    ])('refuses a null %s with 422 validation naming it, and changes nothing', async (field, body) => {
      const { id } = await register('/patch-null');
      const response = await t.http().patch(`/v1/webhooks/${id}`).set(bearer(mine.apiKey)).send(body);
      expect(response.status).toBe(422);
      expect(response.body.type).toBe(validation);
      expect(Object.keys(response.body.errors.fieldErrors)).toEqual([field]);
      expectMatchesSpec(response, 'updateWebhook');
      const list = await t.http().get('/v1/webhooks').set(bearer(mine.apiKey));
      expect(list.body.data.find((e: { id: string }) => e.id === id)).toMatchObject({
        url: receiver.url('/patch-null'),
        isActive: true,
      });
      await t.http().delete(`/v1/webhooks/${id}`).set(bearer(mine.apiKey));
    });

    it('an inactive endpoint gets no deliveries; active again, it does', async () => {
      const { id } = await register('/inactive', ['balance.low']);
      const off = await t.http().patch(`/v1/webhooks/${id}`).set(bearer(mine.apiKey)).send({ isActive: false });
      expect(off.status).toBe(200);
      const event = await dataSource.getRepository(OutboxEvent).save({
        workspaceId: mine.workspaceId,
        type: 'balance.low',
        dedupeKey: `balance.low:${mine.workspaceId}:${randomUUID()}`,
        data: { balance: 0.5, threshold: 1, currency: 'EUR' },
      });
      await eventually('dispatch', async () => {
        const row = await dataSource.getRepository(OutboxEvent).findOneBy({ id: event.id });
        return row?.dispatchedOn;
      });
      expect((await deliveriesOf(id)).body.data).toEqual([]);
      expect(receiver.to('/inactive')).toHaveLength(0);

      await t.http().patch(`/v1/webhooks/${id}`).set(bearer(mine.apiKey)).send({ isActive: true });
      await dataSource.getRepository(OutboxEvent).save({
        workspaceId: mine.workspaceId,
        type: 'balance.low',
        dedupeKey: `balance.low:${mine.workspaceId}:${randomUUID()}`,
        data: { balance: 0.4, threshold: 1, currency: 'EUR' },
      });
      await eventually('a delivery to the reactivated endpoint', async () => receiver.to('/inactive').length === 1);
    });
  });

  describe('POST /v1/webhooks/{id}/test, GET …/deliveries, POST …/redeliver', () => {
    it('pings that endpoint only, signed; the log lists it with its attempt; a redelivery repeats the envelope', async () => {
      const target = await register('/ping-target', ['transcription.completed']);
      const bystander = await register('/ping-bystander', ['transcription.completed', 'balance.low']);
      const ping = await t.http().post(`/v1/webhooks/${target.id}/test`).set(bearer(t.issueToken(mine.userId)));
      expect(ping.status).toBe(202);
      expect(ping.body.data).toMatchObject({ event: 'webhook.test', status: 'pending', attempts: [] });
      expectMatchesSpec(ping, 'testWebhook');

      const [received] = await eventually('the ping', async () => {
        const got = receiver.to('/ping-target');
        return got.length === 1 && got;
      });
      const timestamp = header(received, 'x-service-timestamp')!;
      expect(signatureValid(header(received, 'x-service-signature'), timestamp, received.rawBody, target.secret)).toBe(
        true,
      );
      expect(header(received, 'x-service-delivery-id')).toBe(ping.body.data.id);
      const envelope = JSON.parse(received.rawBody);
      expect(envelope).toEqual({
        event: 'webhook.test',
        timestamp,
        data: { webhookId: target.id, sentAt: expect.any(String) },
      });
      expectWebhookMatchesSpec({ headers: received.headers, body: received.rawBody }, 'webhook.test');
      expect(receiver.to('/ping-bystander')).toHaveLength(0);
      void bystander;

      const log = await eventually('the delivered log entry', async () => {
        const response = await deliveriesOf(target.id);
        return response.body.data[0]?.status === 'delivered' && response;
      });
      expect(log.status).toBe(200);
      expect(log.body.data).toEqual([
        {
          id: ping.body.data.id,
          event: 'webhook.test',
          eventId: expect.any(String),
          status: 'delivered',
          attempts: [{ at: expect.any(String), durationMs: expect.any(Number), statusCode: 200, error: null }],
          redeliveryOf: null,
          createdOn: expect.any(String),
          completedOn: expect.any(String),
        },
      ]);
      expect(log.body).toMatchObject({ cursor: null, hasMore: false });

      const again = await t
        .http()
        .post(`/v1/webhooks/${target.id}/deliveries/${ping.body.data.id}/redeliver`)
        .set(bearer(mine.apiKey));
      expect(again.status).toBe(202);
      expect(again.body.data).toMatchObject({
        event: 'webhook.test',
        eventId: log.body.data[0].eventId,
        status: 'pending',
        redeliveryOf: ping.body.data.id,
      });
      expect(again.body.data.id).not.toBe(ping.body.data.id);
      expectMatchesSpec(again, 'redeliverWebhookDelivery');
      const second = await eventually('the redelivery', async () => receiver.to('/ping-target')[1]);
      const redelivered = JSON.parse(second.rawBody);
      expect(redelivered.event).toBe(envelope.event);
      expect(redelivered.data).toEqual(envelope.data);
      expect(header(second, 'x-service-delivery-id')).toBe(again.body.data.id);
      const secondTimestamp = header(second, 'x-service-timestamp')!;
      expect(redelivered.timestamp).toBe(secondTimestamp);
      expect(signatureValid(header(second, 'x-service-signature'), secondTimestamp, second.rawBody, target.secret)).toBe(
        true,
      );
    });

    it('pages the log newest first with limit and cursor', async () => {
      const { id } = await register('/paged');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const ping = await t.http().post(`/v1/webhooks/${id}/test`).set(bearer(mine.apiKey));
        ids.push(ping.body.data.id);
      }
      const first = await deliveriesOf(id, '?limit=2');
      expect(first.status).toBe(200);
      expect(first.body.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
      expect(first.body).toMatchObject({ cursor: ids[1], hasMore: true });
      const next = await deliveriesOf(id, `?limit=2&cursor=${first.body.cursor}`);
      expect(next.body.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
      expect(next.body).toMatchObject({ cursor: null, hasMore: false });
    });

    it.each([
      ['limit=0', '?limit=0'],
      ['limit=101', '?limit=101'],
      ['a non-UUID cursor', '?cursor=abc'],
      ['a cursor of another endpoint', `?cursor=${randomUUID()}`],
    ])('refuses %s with 422 validation', async (_case, query) => {
      const { id } = await register('/paged-refused');
      const response = await deliveriesOf(id, query);
      expect(response.status).toBe(422);
      expect(response.body.type).toBe(validation);
      await t.http().delete(`/v1/webhooks/${id}`).set(bearer(mine.apiKey));
    });
  });

  describe('POST /v1/webhooks/{id}/rotate-secret', () => {
    it('shows the new secret once; for 24 h deliveries carry both signatures', async () => {
      const { id, secret: old } = await register('/rotated');
      const rotated = await t.http().post(`/v1/webhooks/${id}/rotate-secret`).set(bearer(mine.apiKey));
      expect(rotated.status).toBe(200);
      expectMatchesSpec(rotated, 'rotateWebhookSecret');
      const fresh = rotated.body.data.secret as string;
      expect(fresh).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(fresh).not.toBe(old);
      const expires = Date.parse(rotated.body.data.previousSecretExpiresOn);
      expect(Math.abs(expires - Date.now() - 24 * 3600 * 1000)).toBeLessThan(60_000);
      const list = await t.http().get('/v1/webhooks').set(bearer(mine.apiKey));
      expect(JSON.stringify(list.body)).not.toContain(fresh);

      await t.http().post(`/v1/webhooks/${id}/test`).set(bearer(mine.apiKey));
      const received = await eventually('the ping after rotation', async () => receiver.to('/rotated')[0]);
      const timestamp = header(received, 'x-service-timestamp')!;
      // A receiver that knows only the documented signature header, with the new secret.
      expect(signatureValid(header(received, 'x-service-signature'), timestamp, received.rawBody, fresh)).toBe(true);
      // A receiver still on the old secret reads the second header.
      expect(
        signatureValid(header(received, 'x-service-signature-previous'), timestamp, received.rawBody, old),
      ).toBe(true);
      expect(signatureValid(header(received, 'x-service-signature'), timestamp, received.rawBody, old)).toBe(false);
    });

    it('after the 24 h the old signature is gone', async () => {
      const { id } = await register('/rotated-expired');
      await t.http().post(`/v1/webhooks/${id}/rotate-secret`).set(bearer(mine.apiKey));
      await dataSource.query(
        `UPDATE webhook_endpoints SET previous_secret_expires_on = now() - interval '1 second' WHERE id = $1`,
        [id],
      );
      await t.http().post(`/v1/webhooks/${id}/test`).set(bearer(mine.apiKey));
      const received = await eventually('the ping', async () => receiver.to('/rotated-expired')[0]);
      expect(received.headers['x-service-signature-previous']).toBeUndefined();
    });
  });

  describe('refusals common to every operation', () => {
    let endpointId: string;
    let deliveryId: string;
    let theirEndpoint: string;
    beforeAll(async () => {
      endpointId = (await register('/common')).id;
      deliveryId = (await t.http().post(`/v1/webhooks/${endpointId}/test`).set(bearer(mine.apiKey))).body.data.id;
      theirEndpoint = (await register('/theirs', ['balance.low'], theirs.apiKey)).id;
    });

    const operations = (id: string, delivery: string) =>
      [
        ['updateWebhook', () => t.http().patch(`/v1/webhooks/${id}`).send({ isActive: true })],
        ['listWebhookDeliveries', () => t.http().get(`/v1/webhooks/${id}/deliveries`)],
        ['redeliverWebhookDelivery', () => t.http().post(`/v1/webhooks/${id}/deliveries/${delivery}/redeliver`)],
        ['testWebhook', () => t.http().post(`/v1/webhooks/${id}/test`)],
        ['rotateWebhookSecret', () => t.http().post(`/v1/webhooks/${id}/rotate-secret`)],
      ] as const;

    it('404 for another workspace’s endpoint, an unknown id and a non-UUID id', async () => {
      for (const id of [theirEndpoint, randomUUID(), 'not-a-uuid']) {
        for (const [operationId, call] of operations(id, deliveryId)) {
          const response = await call().set(bearer(mine.apiKey));
          expect([operationId, id, response.status]).toEqual([operationId, id, 404]);
          expect(response.body.type).toBe(notFound);
          expectMatchesSpec(response, operationId);
        }
      }
    });

    it('404 for a delivery of another endpoint, an unknown delivery and a non-UUID delivery id', async () => {
      const other = await register('/common-other');
      const otherDelivery = (await t.http().post(`/v1/webhooks/${other.id}/test`).set(bearer(mine.apiKey))).body.data
        .id;
      for (const delivery of [otherDelivery, randomUUID(), 'nope']) {
        const response = await t
          .http()
          .post(`/v1/webhooks/${endpointId}/deliveries/${delivery}/redeliver`)
          .set(bearer(mine.apiKey));
        expect(response.status).toBe(404);
        expect(response.body.type).toBe(notFound);
        expectMatchesSpec(response, 'redeliverWebhookDelivery');
      }
    });

    it('401 without a credential', async () => {
      for (const [operationId, call] of operations(endpointId, deliveryId)) {
        const response = await call();
        expect(response.status).toBe(401);
        expectMatchesSpec(response, operationId);
      }
    });
  });

  // Last: closing a second app ends the shared database driver for what would run after it.
  describe('PATCH with WEBHOOK_ALLOW_PRIVATE_TARGETS=false (the production default)', () => {
    let strict: TestApp;
    let key: string;
    beforeAll(async () => {
      strict = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', ROLE: 'api' });
      key = (await strict.createWorkspace({ name: 'Ops strict' })).apiKey;
    });
    afterAll(() => strict.close());

    it('applies the SSRF and https rules of registration', async () => {
      const created = await strict
        .http()
        .post('/v1/webhooks')
        .set(bearer(key))
        .send({ url: 'https://93.184.216.34/hook', events: ['balance.low'] });
      expect(created.status).toBe(201);
      for (const url of ['https://127.0.0.1/hook', 'https://169.254.169.254/x', 'http://93.184.216.34/h']) {
        const response = await strict
          .http()
          .patch(`/v1/webhooks/${created.body.data.id}`)
          .set(bearer(key))
          .send({ url });
        expect(response.status).toBe(422);
        expect(response.body.type).toBe(validation);
        expect(Object.keys(response.body.errors.fieldErrors)).toEqual(['url']);
        expectMatchesSpec(response, 'updateWebhook');
      }
    });
  });
});
