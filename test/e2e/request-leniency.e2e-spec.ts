/**
 * Leniency that applies to any request: unknown query parameters such as cache busters are ignored,
 * while known parameters keep their validation; a request head over 16 KB is a problem+json 431.
 */
import { AddressInfo, connect } from 'node:net';
import { ContractResponse, expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;

/** Sends `head` as written on a fresh connection and parses the answer the server writes before closing. */
function rawExchange(port: number, head: string): Promise<ContractResponse & { text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      // A reset after the answer arrived (the server closes with our unread bytes) is not a failure.
      if (chunks.length === 0) reject(error);
    });
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no complete answer: ${JSON.stringify(raw)}`));
      const [statusLine, ...headerLines] = raw.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const text = raw.slice(split + 4);
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: the assertions report it
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, text });
    });
    socket.write(head);
  });
}

describe('Request leniency', () => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    ({ apiKey } = await t.createWorkspace({ name: 'Leniency' }));
  });
  afterAll(() => t.close());

  describe('unknown query parameters are ignored', () => {
    it.each([
      ['/v1/transcriptions', 'listTranscriptions'],
      ['/v1/transcriptions?limit=5&status=completed', 'listTranscriptions'],
      ['/v1/account/usage', 'getUsage'],
      ['/v1/account/usage?months=3', 'getUsage'],
      ['/v1/account/balance', 'getBalance'],
      ['/v1/account/profile', 'getProfile'],
      ['/v1/vocabularies', 'listVocabularies'],
      ['/v1/webhooks', 'listWebhooks'],
      ['/v1/languages', 'listLanguages'],
    ])('%s with a cache buster and an unknown parameter answers 200', async (path, operationId) => {
      const separator = path.includes('?') ? '&' : '?';
      const response = await t
        .http()
        .get(`${path}${separator}_=1700000000&utm_source=newsletter`)
        .set(bearer(apiKey));
      expect(response.status).toBe(200);
      expectMatchesSpec(response, operationId);
    });

    it('the known parameters keep their rules: a bad value next to a cache buster is still 422', async () => {
      const list = await t.http().get('/v1/transcriptions?_=1&limit=1000').set(bearer(apiKey));
      expect(list.status).toBe(422);
      expect(Object.keys(list.body.errors.fieldErrors)).toEqual(['limit']);
      expectMatchesSpec(list, 'listTranscriptions');
      const usage = await t.http().get('/v1/account/usage?_=1&months=13').set(bearer(apiKey));
      expect(usage.status).toBe(422);
      expect(Object.keys(usage.body.errors.fieldErrors)).toEqual(['months']);
      expectMatchesSpec(usage, 'getUsage');
    });

    it('the unknown parameter does not leak into the known ones (a list filter still filters)', async () => {
      const response = await t
        .http()
        .get('/v1/transcriptions?status=completed&_=1&cursor_typo=x')
        .set(bearer(apiKey));
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
      expectMatchesSpec(response, 'listTranscriptions');
    });
  });

  describe('a request head over 16 KB', () => {
    let port: number;
    beforeAll(async () => {
      await new Promise<void>((resolve) => t.app.getHttpServer().listen(0, '127.0.0.1', resolve));
      port = (t.app.getHttpServer().address() as AddressInfo).port;
    });

    it.each([
      ['/v1/health', 'getHealth', ''],
      ['/v1/transcriptions', 'listTranscriptions', 'with-key'],
    ])('GET %s with a 20 KB header answers problem+json 431', async (path, operationId, withKey) => {
      const credential = withKey ? `Authorization: Bearer ${apiKey}\r\n` : '';
      const response = await rawExchange(
        port,
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${credential}X-Padding: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
      );
      expect(response.status).toBe(431);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers.connection).toBe('close');
      expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
      // The head (and any X-Request-Id in it) cannot be read: a generated request id, as on every answer.
      expect(response.headers['x-request-id']).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      expect(response.body).toMatchObject({
        type: problem('request-header-fields-too-large'),
        status: 431,
      });
      expectMatchesSpec(response, operationId);
    });

    it('a head just under the limit is served as usual', async () => {
      const response = await rawExchange(
        port,
        `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Padding: ${'a'.repeat(15 * 1024)}\r\n\r\n`,
      );
      expect(response.status).toBe(200);
      expectMatchesSpec(response, 'getHealth');
    });
  });
});
