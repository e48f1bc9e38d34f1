import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const GO_FORWARD = readFileSync(testAudio('pocketsphinx/goforward.wav'));
const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;
/** Small enough that a fixture fits and a streamed body of 2 MB does not. */
const TEST_LIMIT_BYTES = 1_000_000;

/**
 * Intake by URL through HTTP: POST /v1/transcriptions with `audio_url` (multipart field or JSON body),
 * fetched from local HTTP servers. The fetch is synchronous: the 202 comes once the file is stored, and a
 * URL that cannot be fetched is 422 validation on audio_url (docs/decisions.md, "Transcribing from a URL").
 */
describe('Transcribing from a URL', () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      URL_FETCH_MAX_BYTES: String(TEST_LIMIT_BYTES),
      URL_FETCH_TIMEOUT_MS: '2000',
    });
    server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const hops = Number(url.searchParams.get('hops') ?? 0);
      switch (url.pathname) {
        case '/goforward.wav':
          response.writeHead(200, { 'Content-Type': 'audio/wav' }).end(GO_FORWARD);
          return;
        case '/redirect':
          response
            .writeHead(302, { Location: hops > 1 ? `/redirect?hops=${hops - 1}` : '/goforward.wav' })
            .end();
          return;
        case '/page.html':
          response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><p>not audio</p>');
          return;
        case '/slow':
          response.writeHead(200, { 'Content-Type': 'audio/wav' });
          response.write(GO_FORWARD.subarray(0, 1000)); // then nothing until the deadline passes
          return;
        case '/declared-huge':
          response.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': '600000000' });
          response.write(GO_FORWARD.subarray(0, 1000));
          return;
        case '/streamed-huge': {
          response.writeHead(200, { 'Content-Type': 'audio/wav' }); // chunked, no declared length
          const chunk = Buffer.alloc(64 * 1024);
          let sent = 0;
          const pump = (): void => {
            while (sent < 2 * TEST_LIMIT_BYTES && !response.destroyed) {
              sent += chunk.length;
              if (!response.write(chunk)) return void response.once('drain', pump);
            }
            response.end();
          };
          pump();
          return;
        }
        default:
          response.writeHead(404).end('not found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ apiKey } = await t.createWorkspace({ name: 'URL intake', balanceEur: 5 }));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  const postJson = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.http().post('/v1/transcriptions').set(bearer(apiKey)).set(headers).send(body);

  async function expectUnfetchable(audioUrl: string, reason: RegExp) {
    const response = await postJson({ audio_url: audioUrl });
    expect(response.status).toBe(422);
    expectMatchesSpec(response, 'createTranscription');
    expect(response.body.type).toBe(problem('validation'));
    expect(response.body.errors.fieldErrors.audio_url[0]).toMatch(reason);
  }

  it('accepts a JSON body with audio_url like an upload (202, the file sniffed and probed)', async () => {
    const response = await postJson({ audio_url: `${base}/goforward.wav`, model: 'premium', language: 'en' });
    expect(response.status).toBe(202);
    expectMatchesSpec(response, 'createTranscription');
    const detail = await t.http().get(`/v1/transcriptions/${response.body.data.id}`).set(bearer(apiKey));
    expectMatchesSpec(detail, 'getTranscription');
    expect(detail.body.data).toMatchObject({
      originalFileName: 'goforward.wav',
      model: 'premium',
      language: 'en',
    });
    expect(detail.body.data.duration).toBeCloseTo(2.786, 1); // probed like an upload
  });

  it('accepts audio_url as a multipart field', async () => {
    const response = await t
      .http()
      .post('/v1/transcriptions')
      .set(bearer(apiKey))
      .field('audio_url', `${base}/goforward.wav`)
      .field('model', 'standard');
    expect(response.status).toBe(202);
    expectMatchesSpec(response, 'createTranscription');
  });

  it('refuses both a file and audio_url (422) and neither (400 missing-file)', async () => {
    const both = await t
      .http()
      .post('/v1/transcriptions')
      .set(bearer(apiKey))
      .field('audio_url', `${base}/goforward.wav`)
      .attach('file', GO_FORWARD, 'goforward.wav');
    expect(both.status).toBe(422);
    expectMatchesSpec(both, 'createTranscription');
    expect(both.body.errors.fieldErrors.audio_url).toBeDefined();
    const neither = await postJson({ model: 'standard' });
    expect(neither.status).toBe(400);
    expectMatchesSpec(neither, 'createTranscription');
    expect(neither.body.type).toBe(problem('missing-file'));
  });

  it('follows up to 5 redirects and refuses the 6th', async () => {
    const five = await postJson({ audio_url: `${base}/redirect?hops=5` });
    expect(five.status).toBe(202);
    expectMatchesSpec(five, 'createTranscription');
    await expectUnfetchable(`${base}/redirect?hops=6`, /more than 5 redirects/);
  });

  it('refuses a 404', () => expectUnfetchable(`${base}/missing.wav`, /HTTP 404/));

  it('refuses a server that does not send the whole file within the deadline', () =>
    expectUnfetchable(`${base}/slow`, /within 2000 ms/));

  it('refuses a declared Content-Length over the limit at once, and a streamed body once it passes it', async () => {
    for (const path of ['/declared-huge', '/streamed-huge']) {
      const response = await postJson({ audio_url: `${base}${path}` });
      expect(response.status).toBe(422);
      expectMatchesSpec(response, 'createTranscription');
      expect(response.body.type).toBe(problem('file-too-large'));
    }
  });

  it('refuses an HTML page like an upload of one (unsupported-format)', async () => {
    const response = await postJson({ audio_url: `${base}/page.html` });
    expect(response.status).toBe(422);
    expectMatchesSpec(response, 'createTranscription');
    expect(response.body.type).toBe(problem('unsupported-format'));
  });

  it('refuses a workspace that cannot pay like an upload (402, before fetching)', async () => {
    const { apiKey: brokeKey } = await t.createWorkspace({
      name: 'Broke URL intake',
      balanceEur: 0,
      freeTranscriptions: 0,
    });
    const response = await t
      .http()
      .post('/v1/transcriptions')
      .set(bearer(brokeKey))
      .send({ audio_url: `${base}/goforward.wav` });
    expect(response.status).toBe(402);
    expectMatchesSpec(response, 'createTranscription');
    expect(response.body.type).toBe(problem('insufficient-balance'));
  });

  it('checks the fields before fetching (a bad model is refused like an upload)', async () => {
    const response = await postJson({ audio_url: `${base}/goforward.wav`, model: 'nope' });
    expect(response.status).toBe(422);
    expectMatchesSpec(response, 'createTranscription');
    expect(response.body.type).toBe(problem('invalid-model'));
  });

  it('replays an Idempotency-Key retry and refuses the key with another URL', async () => {
    const key = randomUUID();
    const first = await postJson({ audio_url: `${base}/goforward.wav` }, { 'Idempotency-Key': key });
    expect(first.status).toBe(202);
    const retry = await postJson({ audio_url: `${base}/goforward.wav` }, { 'Idempotency-Key': key });
    expect(retry.status).toBe(202);
    expectMatchesSpec(retry, 'createTranscription');
    expect(retry.body.data.id).toBe(first.body.data.id);
    const other = await postJson({ audio_url: `${base}/redirect?hops=1` }, { 'Idempotency-Key': key });
    expect(other.status).toBe(422);
    expectMatchesSpec(other, 'createTranscription');
  });

  describe('with the default address rules (private targets not allowed)', () => {
    let strict: TestApp;
    let strictKey: string;
    beforeAll(async () => {
      strict = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
      ({ apiKey: strictKey } = await strict.createWorkspace({ name: 'Strict URL intake', balanceEur: 5 }));
    });
    afterAll(() => strict.close());

    it.each([
      ['an http URL', () => `${base}/goforward.wav`, /must use https/],
      ['an https URL to a loopback address', () => 'https://127.0.0.1/goforward.wav', /loopback/],
      [
        'an https URL whose name resolves to loopback',
        () => 'https://localhost:1/goforward.wav',
        /not a public address/,
      ],
    ])('refuses %s', async (_name, url, reason) => {
      const response = await strict
        .http()
        .post('/v1/transcriptions')
        .set(bearer(strictKey))
        .send({ audio_url: url() });
      expect(response.status).toBe(422);
      expectMatchesSpec(response, 'createTranscription');
      expect(response.body.errors.fieldErrors.audio_url[0]).toMatch(reason);
    });

    it('refuses a host name that resolves to a private address without naming that address', async () => {
      // Printing the resolved address would let any key holder map internal DNS.
      const response = await strict
        .http()
        .post('/v1/transcriptions')
        .set(bearer(strictKey))
        .send({ audio_url: 'https://localhost:1/goforward.wav' });
      expect(response.status).toBe(422);
      expectMatchesSpec(response, 'createTranscription');
      expect(response.body.errors.fieldErrors.audio_url).toEqual([expect.stringMatching(/not a public address/)]);
      expect(JSON.stringify(response.body)).not.toMatch(/127\.0\.0\.1|::1\b/);
    });
  });
});
