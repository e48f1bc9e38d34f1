import { randomUUID } from 'node:crypto';
import { OPERATOR } from '../../src/audit/audit-log.service';
import type { Response } from 'supertest';
import { ApiKeyService } from '../../src/auth/api-key.service';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

/**
 * The real limits (30/min anonymous, 100/min per key, 300/min per workspace), on a Redis prefix of
 * their own.
 */
describe('Rate limits (spec: Limits)', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    const limits = {
      REDIS_PREFIX: `stt-test-rate-${randomUUID()}`,
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '30',
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: '100',
      // The default of RATE_LIMIT_WORKSPACE_PER_MINUTE (test-environment.ts raises it for the other suites).
      RATE_LIMIT_WORKSPACE_PER_MINUTE: '300',
      ROLE: 'api',
    };
    // Two API instances sharing one Redis: limits must hold across them.
    first = await startTestApp(limits);
    second = await startTestApp(limits);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('allows 30 unauthenticated calls a minute per IP across instances, then 429 with Retry-After', async () => {
    for (let call = 1; call <= 30; call++) {
      const app = call % 2 === 0 ? first : second;
      const response = await app.http().get('/v1/languages');
      expect({ call, status: response.status }).toEqual({ call, status: 200 });
      expect(response.headers['x-ratelimit-limit']).toBe('30');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(30 - call));
    }
    const refused = await first.http().get('/v1/languages');
    expect(refused.status).toBe(429);
    expect(refused.body.type).toBe('https://errors.transcription.example/problems/rate-limit');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expectMatchesSpec(refused, 'listLanguages');
  });

  // Runs after the test above has spent this IP's budget.
  it('never limits GET /v1/health: a load-balancer probe gets 200 with the IP budget spent', async () => {
    expect((await first.http().get('/v1/nothing-here')).status).toBe(429);
    for (let probe = 1; probe <= 5; probe++) {
      const response = await (probe % 2 === 0 ? first : second).http().get('/v1/health');
      expect({ probe, status: response.status }).toEqual({ probe, status: 200 });
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
      expectMatchesSpec(response, 'getHealth');
    }
  });

  it('without TRUST_PROXY, a spoofed X-Forwarded-For does not give a fresh budget', async () => {
    const spoofed = await first.http().get('/v1/languages').set('X-Forwarded-For', '203.0.113.99');
    expect(spoofed.status).toBe(429);
    expectMatchesSpec(spoofed, 'listLanguages');
  });

  it('allows 100 calls a minute per API key, counted per key and not per IP', async () => {
    const a = await first.createWorkspace({ name: 'Rate A' });
    const b = await first.createWorkspace({ name: 'Rate B' });
    for (let call = 1; call <= 100; call++) {
      const app = call % 2 === 0 ? first : second;
      const response = await app.http().get('/v1/account/balance').set(bearer(a.apiKey));
      expect({ call, status: response.status }).toEqual({ call, status: 200 });
    }
    const refused = await second.http().get('/v1/account/balance').set(bearer(a.apiKey));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expectMatchesSpec(refused, 'getBalance');

    const otherKey = await first.http().get('/v1/account/balance').set(bearer(b.apiKey));
    expect(otherKey.status).toBe(200);
    expect(otherKey.headers['x-ratelimit-limit']).toBe('100');
    expect(otherKey.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('shares 300 calls a minute among all keys of a workspace: four keys do not buy 400', async () => {
    const workspace = await first.createWorkspace({ name: 'Rate many keys' });
    const keys = [workspace.apiKey];
    for (let index = 0; index < 3; index++) {
      keys.push(
        (await first.app.get(ApiKeyService).create(workspace.workspaceId, null, { actor: OPERATOR })).apiKey,
      );
    }
    const outcomes: Record<number, number> = {};
    let refusal: Response | null = null;
    for (let call = 0; call < 400; call++) {
      const app = call % 2 === 0 ? first : second;
      const response = await app
        .http()
        .get('/v1/account/balance')
        .set(bearer(keys[call % keys.length]));
      outcomes[response.status] = (outcomes[response.status] ?? 0) + 1;
      if (response.status === 429) refusal ??= response;
    }
    expect(outcomes).toEqual({ 200: 300, 429: 100 });
    expect(refusal).not.toBeNull();
    const refused = refusal as Response;
    expectMatchesSpec(refused, 'getBalance');
    expect(refused.body.type).toBe('https://errors.transcription.example/problems/rate-limit');
    expect(refused.body.detail).toContain('300 requests per minute for the workspace');
    expect(refused.headers['x-ratelimit-limit']).toBe('300');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);

    // Another workspace is not affected.
    const other = await first.createWorkspace({ name: 'Rate other workspace' });
    expect((await first.http().get('/v1/account/balance').set(bearer(other.apiKey))).status).toBe(200);
  });

  it('counts JWT calls per user', async () => {
    const c = await first.createWorkspace({ name: 'Rate C' });
    const response = await first
      .http()
      .get('/v1/account/profile')
      .set(bearer(first.issueToken(c.userId)));
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBe('100');
    expect(response.headers['x-ratelimit-remaining']).toBe('99');
  });

  /**
   * Behind a load balancer every request arrives from the balancer's address. With TRUST_PROXY naming the
   * balancer (hop count or addresses), the per-IP budget is the client's, from X-Forwarded-For; a peer that
   * is not trusted cannot choose its bucket with that header.
   */
  describe('TRUST_PROXY (behind a load balancer)', () => {
    const budget = 3;
    const apps: Record<string, TestApp> = {};
    const settings = {
      'a hop count': '1',
      'the balancer addresses (CIDRs)': '127.0.0.0/8, ::1/128, ::ffff:127.0.0.0/104',
      'addresses that are not the peer': '10.0.0.0/8',
    };

    beforeAll(async () => {
      for (const [name, trustProxy] of Object.entries(settings)) {
        apps[name] = await startTestApp({
          REDIS_PREFIX: `stt-test-proxy-${randomUUID()}`,
          RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: String(budget),
          TRUST_PROXY: trustProxy,
          ROLE: 'api',
        });
      }
    });
    afterAll(async () => {
      for (const app of Object.values(apps)) await app.close();
    });

    const fromClient = (app: TestApp, client: string) =>
      app.http().get('/v1/languages').set('X-Forwarded-For', client);

    it.each(['a hop count', 'the balancer addresses (CIDRs)'])(
      'with %s, two client addresses get separate budgets',
      async (name) => {
        const app = apps[name];
        for (let call = 1; call <= budget; call++) {
          const response = await fromClient(app, '203.0.113.1');
          expect({ call, status: response.status }).toEqual({ call, status: 200 });
        }
        const refused = await fromClient(app, '203.0.113.1');
        expect(refused.status).toBe(429);
        expectMatchesSpec(refused, 'listLanguages');
        const other = await fromClient(app, '203.0.113.2');
        expect(other.status).toBe(200);
        expect(other.headers['x-ratelimit-remaining']).toBe(String(budget - 1));
        expectMatchesSpec(other, 'listLanguages');
      },
    );

    it('with addresses that do not include the peer, X-Forwarded-For is ignored', async () => {
      const app = apps['addresses that are not the peer'];
      for (let call = 1; call <= budget; call++) {
        const response = await fromClient(app, `198.51.100.${call}`);
        expect({ call, status: response.status }).toEqual({ call, status: 200 });
      }
      const refused = await fromClient(app, '198.51.100.200');
      expect(refused.status).toBe(429);
      expectMatchesSpec(refused, 'listLanguages');
    });
  });
});
