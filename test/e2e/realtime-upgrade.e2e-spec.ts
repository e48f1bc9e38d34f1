import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import type { ApiKeyRequestView } from '../../src/auth/api-key-request-log.service';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

interface UpgradeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** Sends a /v1/realtime upgrade (or of `path`) and answers the handshake's outcome (the socket of a 101 is closed at once). */
function upgrade(
  port: number,
  headers: Record<string, string>,
  path = '/v1/realtime',
): Promise<UpgradeAnswer> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers });
  return new Promise((resolve, reject) => {
    socket.once('upgrade', (response: IncomingMessage) => {
      socket.once('open', () => socket.close());
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body: null });
    });
    socket.once('unexpected-response', (_request, response: IncomingMessage) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) }),
      );
    });
    socket.once('error', reject);
  });
}

/**
 * WebSocket upgrades of /v1/realtime pass the same rate limiter as HTTP requests (the same buckets in Redis,
 * shared by every API process, the same limits: 30/min per address unauthenticated, 100/min per key) and
 * appear in the API key's request log (issue 31). Real limits, on a Redis prefix of their own, two instances.
 */
describe('Realtime upgrades: the rate limit and the request log of HTTP requests', () => {
  let first: TestApp;
  let second: TestApp;
  let ports: number[];

  beforeAll(async () => {
    const limits = {
      REDIS_PREFIX: `stt-test-upgrade-rate-${randomUUID()}`,
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '30',
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: '100',
      RATE_LIMIT_WORKSPACE_PER_MINUTE: '300',
      ROLE: 'api',
    };
    first = await startTestApp(limits);
    second = await startTestApp(limits);
    ports = [await first.listeningPort(), await second.listeningPort()];
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('60 upgrades with a wrong key across two instances: 429 with Retry-After after 30, as over HTTP', async () => {
    const answers: UpgradeAnswer[] = [];
    for (let call = 1; call <= 60; call++) {
      answers.push(await upgrade(ports[call % 2], bearer('sk_live_wrong-key-of-nobody')));
    }
    expect(answers.map((answer) => answer.status)).toEqual([...Array(30).fill(101), ...Array(30).fill(429)]);
    // Each counted, the 101s too (then closed 4001 after the upgrade, as before).
    answers.slice(0, 30).forEach((answer, index) => {
      expect(answer.headers['x-ratelimit-limit']).toBe('30');
      expect(answer.headers['x-ratelimit-remaining']).toBe(String(29 - index));
    });
    const answer = answers[30];
    expect(answer.body).toMatchObject({ status: 429, type: expect.stringMatching(/\/rate-limit$/) });
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(answer.headers['x-ratelimit-remaining']).toBe('0');
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expectMatchesSpec(answer, 'openRealtimeSession');
    // The same bucket as HTTP requests from this address.
    const http = await first.http().get('/v1/languages');
    expect(http.status).toBe(429);
  });

  it("an API key's upgrades count against its limit and appear in its request log, the refused one too", async () => {
    const workspace = await first.createWorkspace({ name: 'Upgrade request log' });
    const session = bearer(first.issueToken(workspace.userId));
    const keys = await first.http().get('/v1/api-keys').set(session);
    const apiKeyId = (keys.body.data as Array<{ id: string }>)[0].id;
    const requestId = `upgrade-${randomUUID()}`;

    const opened = await upgrade(ports[0], { ...bearer(workspace.apiKey), 'X-Request-Id': requestId });
    expect(opened.status).toBe(101);
    const loggedWith = (status: number) =>
      eventually(
        `the upgrade answered ${status} in the key’s request log`,
        async () => {
          const response = await first
            .http()
            .get(`/v1/api-keys/${apiKeyId}/requests?status=${status}`)
            .set(session);
          expectMatchesSpec(response, 'listApiKeyRequests');
          const entries = response.body.data as ApiKeyRequestView[];
          return entries.length > 0 ? entries : null;
        },
        10_000,
        100,
      );
    expect(await loggedWith(101)).toEqual([
      expect.objectContaining({ method: 'GET', path: '/v1/realtime', status: 101, requestId }),
    ]);
    expect(opened.headers['x-request-id']).toBe(requestId);
    expect(opened.headers['x-ratelimit-limit']).toBe('100');
    expect(opened.headers['x-ratelimit-remaining']).toBe('99');

    // The key's other 99 calls of the minute, over HTTP on the other instance: the next upgrade is refused.
    for (let call = 2; call <= 100; call++) {
      const response = await second.http().get('/v1/account/balance').set(bearer(workspace.apiKey));
      expect({ call, status: response.status }).toEqual({ call, status: 200 });
    }
    const limited = await upgrade(ports[1], bearer(workspace.apiKey));
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expectMatchesSpec(limited, 'openRealtimeSession');

    expect(await loggedWith(429)).toEqual([
      expect.objectContaining({ method: 'GET', path: '/v1/realtime', status: 429 }),
    ]);

    // Deepgram's and AssemblyAI's WebSockets share the limit and refuse in their own shapes, which their SDKs read.
    const deepgram = await upgrade(
      ports[0],
      { Authorization: `Token ${workspace.apiKey}` },
      '/v1/listen?encoding=linear16&sample_rate=16000',
    );
    expect(deepgram).toMatchObject({ status: 429, body: { err_code: 'TOO_MANY_REQUESTS' } });
    expect(deepgram.headers['retry-after']).toMatch(/^\d+$/);
    const assemblyAi = await upgrade(
      ports[1],
      { Authorization: workspace.apiKey },
      '/v3/ws?sample_rate=16000',
    );
    expect(assemblyAi).toMatchObject({
      status: 429,
      body: { error: expect.stringMatching(/rate|limit|many/i) },
    });
    expect(assemblyAi.headers['retry-after']).toMatch(/^\d+$/);
  });
});
