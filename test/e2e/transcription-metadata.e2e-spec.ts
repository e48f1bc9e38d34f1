import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectMatchesSpec, expectWebhookMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload, waitForTerminal } from '../support/transcriptions';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.786 s → 3 billed seconds
const JFK = testAudio('whisper.cpp/jfk.wav'); // 11.0 s → 11 billed seconds
const SILENCE = testAudio('kaldi-gstreamer-server/silence.wav'); // fails NO_SPOKEN_AUDIO

const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;

interface Received {
  headers: IncomingHttpHeaders;
  rawBody: string;
}

/**
 * Through HTTP: the caller's `metadata` (stored, in the detail, echoed in both
 * transcription webhook events) and the `estimatedCost` quote of the 202 and the detail.
 */
describe('Transcription metadata and the estimated cost', () => {
  let t: TestApp;
  let server: Server;
  const received: Received[] = [];

  beforeAll(async () => {
    // A minimum balance below the quotes of the short clips, so the 402 below comes from the quote (decided
    // after the body) and not from the minimum-balance check that refuses before the body.
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', MINIMUM_BALANCE_EUR: '0.0001' });
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, rawBody: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  async function detailOf(apiKey: string, id: string) {
    const detail = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
    expect(detail.status).toBe(200);
    expectMatchesSpec(detail, 'getTranscription');
    return detail.body.data as Record<string, unknown>;
  }

  /** Each listed job's `estimatedCost` by id, the list checked against openapi.yaml. */
  async function listedQuotes(apiKey: string) {
    const list = await t.http().get('/v1/transcriptions').set(bearer(apiKey));
    expect(list.status).toBe(200);
    expectMatchesSpec(list, 'listTranscriptions');
    const rows = list.body.data as { id: string; estimatedCost?: number | null }[];
    return Object.fromEntries(rows.map((row) => [row.id, row.estimatedCost]));
  }

  /** The delivery of `event` for transcription `id`, checked against openapi.yaml's `webhooks`. */
  async function deliveryOf(event: string, id: string, deadlineMs = 60_000) {
    const deadline = Date.now() + deadlineMs;
    while (Date.now() < deadline) {
      const match = received.find((one) => {
        const body = JSON.parse(one.rawBody) as { event: string; data: { id?: string } };
        return body.event === event && body.data.id === id;
      });
      if (match) {
        expectWebhookMatchesSpec({ headers: match.headers, body: match.rawBody }, event);
        return (JSON.parse(match.rawBody) as { data: Record<string, unknown> }).data;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`no ${event} delivery for ${id} within ${deadlineMs} ms`);
  }

  describe('metadata', () => {
    let apiKey: string;
    beforeAll(async () => {
      ({ apiKey } = await t.createWorkspace({ name: 'Metadata', balanceEur: 5, freeTranscriptions: 0 }));
      const hook = await t
        .http()
        .post('/v1/webhooks')
        .set(bearer(apiKey))
        .send({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
          events: ['transcription.completed', 'transcription.failed'],
        });
      expect(hook.status).toBe(201);
    });

    it('stores metadata, returns it in the detail and echoes it in transcription.completed', async () => {
      const metadata = {
        customer: 'acme',
        ticket: 'T-1042',
        note: 'Grüezi ❤️',
        [`k${'x'.repeat(39)}`]: 'v'.repeat(500),
      };
      const created = await upload(t, apiKey, GO_FORWARD, { metadata: JSON.stringify(metadata) });
      expect(created.status).toBe(202);
      const id = created.body.data.id as string;
      expect((await detailOf(apiKey, id)).metadata).toEqual(metadata);
      const done = await waitForTerminal(t, apiKey, id);
      expect(done.status).toBe('completed');
      expect(done.body.data.metadata).toEqual(metadata);
      expect((await deliveryOf('transcription.completed', id)).metadata).toEqual(metadata);
    }, 90_000);

    it('echoes metadata in transcription.failed', async () => {
      const metadata = { source: 'silence-check' };
      const created = await upload(t, apiKey, SILENCE, { metadata: JSON.stringify(metadata) });
      expect(created.status).toBe(202);
      const id = created.body.data.id as string;
      const done = await waitForTerminal(t, apiKey, id);
      expect(done.status).toBe('failed');
      expect((await deliveryOf('transcription.failed', id)).metadata).toEqual(metadata);
    }, 90_000);

    it('shows {} when no metadata was sent, in the detail and the webhook', async () => {
      const created = await upload(t, apiKey, GO_FORWARD);
      expect(created.status).toBe(202);
      const id = created.body.data.id as string;
      expect((await detailOf(apiKey, id)).metadata).toEqual({});
      expect((await deliveryOf('transcription.completed', id)).metadata).toEqual({});
    }, 90_000);

    it.each([
      ['not JSON', '{customer: acme}'],
      ['an array', '["acme"]'],
      ['a string', '"acme"'],
      ['null', 'null'],
      ['17 keys', JSON.stringify(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])))],
      ['a number value', JSON.stringify({ count: 3 })],
      ['a null value', JSON.stringify({ count: null })],
      ['an object value', JSON.stringify({ nested: { a: 'b' } })],
      ['an empty key', JSON.stringify({ '': 'v' })],
      ['a 41-character key', JSON.stringify({ ['k'.repeat(41)]: 'v' })],
      ['a 501-character value', JSON.stringify({ k: 'v'.repeat(501) })],
      ['a lone surrogate', '{"k":"\\ud800"}'],
    ])('422 validation on metadata for %s', async (_case, metadata) => {
      const response = await upload(t, apiKey, GO_FORWARD, { metadata });
      expect(response.status).toBe(422);
      expect(response.body.type).toBe(problem('validation'));
      expect(Object.keys(response.body.errors.fieldErrors)).toEqual(['metadata']);
    });

    it('makes metadata part of the Idempotency-Key fingerprint', async () => {
      const headers = { 'Idempotency-Key': randomUUID() };
      const first = await upload(t, apiKey, GO_FORWARD, { metadata: '{"a":"1"}' }, headers);
      expect(first.status).toBe(202);
      const same = await upload(t, apiKey, GO_FORWARD, { metadata: '{"a":"1"}' }, headers);
      expect(same.status).toBe(202);
      expect(same.body.data.id).toBe(first.body.data.id);
      const other = await upload(t, apiKey, GO_FORWARD, { metadata: '{"a":"2"}' }, headers);
      expect(other.status).toBe(422);
      expect(other.body.type).toBe(problem('idempotency-key-mismatch'));
    });
  });

  describe('word confidence', () => {
    it('gives the words of the detail a confidence in 0..1 from the recogniser (PocketSphinx here), varying', async () => {
      const { apiKey } = await t.createWorkspace({ name: 'Confidence', balanceEur: 1 });
      const created = await upload(t, apiKey, testAudio('wenet/librispeech-1995-1837-0001.wav'));
      expect(created.status).toBe(202);
      const done = await waitForTerminal(t, apiKey, created.body.data.id as string, 90_000);
      expect(done.status).toBe('completed');
      const words = (done.body.data.resultJson as { words: Array<{ confidence?: unknown }> }).words;
      expect(words.length).toBeGreaterThan(5);
      for (const word of words) {
        expect(typeof word.confidence).toBe('number');
        expect(word.confidence).toBeGreaterThanOrEqual(0);
        expect(word.confidence).toBeLessThanOrEqual(1);
      }
      expect(new Set(words.map((word) => word.confidence)).size).toBeGreaterThan(1);
    }, 120_000);
  });

  describe('estimatedCost', () => {
    it('quotes the probed duration × the tier price in the 202 and the detail; the charge comes at completion', async () => {
      const { apiKey } = await t.createWorkspace({ name: 'Quote', balanceEur: 1, freeTranscriptions: 0 });
      const standard = await upload(t, apiKey, JFK, { model: 'standard' });
      expect(standard.status).toBe(202);
      expect(standard.body.data.estimatedCost).toBe(0.00055); // 11 s × 0.003 EUR/min
      const premium = await upload(t, apiKey, JFK, { model: 'premium' });
      expect(premium.status).toBe(202);
      expect(premium.body.data.estimatedCost).toBe(0.000825); // 11 s × 0.0045 EUR/min
      const id = standard.body.data.id as string;
      expect((await detailOf(apiKey, id)).estimatedCost).toBe(0.00055);
      // The list shows the same quote as the detail (it once had none, which read as null).
      expect(await listedQuotes(apiKey)).toEqual({
        [id]: 0.00055,
        [premium.body.data.id as string]: 0.000825,
      });
      const done = await waitForTerminal(t, apiKey, id);
      expect(done.status).toBe('completed');
      expect(done.body.data.estimatedCost).toBe(0.00055);
      expect(done.body.data.cost).toBe(0.00055);
    }, 90_000);

    it('quotes 0 for a job on a free transcription', async () => {
      const { apiKey } = await t.createWorkspace({
        name: 'Quote free',
        balanceEur: 0,
        freeTranscriptions: 1,
      });
      const created = await upload(t, apiKey, JFK);
      expect(created.status).toBe(202);
      expect(created.body.data.estimatedCost).toBe(0);
      expect((await detailOf(apiKey, created.body.data.id as string)).estimatedCost).toBe(0);
      expect(await listedQuotes(apiKey)).toEqual({ [created.body.data.id as string]: 0 });
    });

    it('refuses with 402 insufficient-balance a paid file whose quote exceeds the balance, before any job runs', async () => {
      const { apiKey } = await t.createWorkspace({
        name: 'Quote short',
        balanceEur: 0.0005,
        freeTranscriptions: 0,
      });
      const refused = await upload(t, apiKey, JFK); // quote 0.00055 EUR against 0.0005
      expect(refused.status).toBe(402);
      expect(refused.body.type).toBe(problem('insufficient-balance'));
      expect(refused.body.detail).toContain('this file costs about');
      const list = await t.http().get('/v1/transcriptions').set(bearer(apiKey));
      expectMatchesSpec(list, 'listTranscriptions');
      expect(list.body.data).toHaveLength(0);
    });
  });
});
