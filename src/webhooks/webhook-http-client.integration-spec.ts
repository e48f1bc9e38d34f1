import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookHttpClient } from './webhook-http-client';

/** A real local server: the client is exercised over real HTTP, nothing is mocked. */
describe('WebhookHttpClient', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ path: string; headers: IncomingHttpHeaders; body: Buffer }> = [];
  const client = new WebhookHttpClient();
  /** Requests to /held are never answered; each one's connection closing (the client gave up) is noted. */
  const heldClosed: Array<Promise<void>> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/held') heldClosed.push(new Promise((resolve) => response.on('close', resolve)));
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
        if (request.url === '/redirect') response.writeHead(307, { Location: '/ok' }).end();
        else if (request.url === '/held') return;
        else if (request.url === '/teapot') response.writeHead(418).end('no');
        else response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const post = (path: string, overrides: Partial<Parameters<WebhookHttpClient['post']>[0]> = {}) =>
    client.post({
      url: `${base}${path}`,
      headers: { 'Content-Type': 'application/json', 'X-Test': 'yes' },
      body: Buffer.from('{"event":"balance.low","data":{"note":"Grüße ✓"}}', 'utf8'),
      timeoutMs: 2_000,
      allowPrivateTargets: true,
      ...overrides,
    });

  it('sends the body byte for byte with its headers and returns the status', async () => {
    expect(await post('/ok')).toEqual({ statusCode: 204 });
    const request = seen.find((entry) => entry.path === '/ok');
    expect(request?.body.toString('utf8')).toBe('{"event":"balance.low","data":{"note":"Grüße ✓"}}');
    expect(request?.headers['content-length']).toBe(String(request?.body.length));
    expect(request?.headers['x-test']).toBe('yes');
  });

  it('does not follow redirects', async () => {
    const before = seen.filter((entry) => entry.path === '/ok').length;
    expect(await post('/redirect')).toEqual({ statusCode: 307 });
    expect(seen.filter((entry) => entry.path === '/ok')).toHaveLength(before);
  });

  it('reports 4xx statuses as they are', async () => {
    expect(await post('/teapot')).toEqual({ statusCode: 418 });
  });

  it('gives up at the deadline and closes the connection', async () => {
    // The server never answers: without the deadline the post would wait for ever (the test's own timeout).
    const result = await post('/held', { timeoutMs: 300 });
    expect(result).toEqual({ statusCode: null, error: 'timeout: no answer within 300 ms' });
    expect(heldClosed).toHaveLength(1);
    await heldClosed[0];
  });

  it('reports a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await post('/', { url: `http://127.0.0.1:${port}/` });
    expect(result).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^connection error: .*ECONNREFUSED/),
    });
  });

  it.each([false, true])(
    'reports a host name that does not resolve as a DNS failure, not a refusal (private targets allowed: %s)',
    async (allowPrivateTargets) => {
      const result = await post('/', { url: 'http://does-not-exist.invalid/ok', allowPrivateTargets });
      expect(result).toEqual({
        statusCode: null,
        error: expect.stringMatching(/^dns failure: .*(ENOTFOUND|EAI_AGAIN)/),
      });
    },
  );

  it('refuses a host name that resolves to a private address at connection time', async () => {
    const port = (server.address() as AddressInfo).port;
    const result = await post('/', { url: `http://localhost:${port}/ok`, allowPrivateTargets: false });
    expect(result).toMatchObject({
      statusCode: null,
      refused: true,
      error: expect.stringMatching(/^refused: /),
    });
  });
});
