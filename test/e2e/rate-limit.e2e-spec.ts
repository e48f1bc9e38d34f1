import { randomUUID } from 'node:crypto';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

/** The real limits of the spec (30/min anonymous, 100/min per key), on a Redis prefix of their own. */
describe('Rate limits (spec: Limits)', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    const limits = {
      REDIS_PREFIX: `stt-test-rate-${randomUUID()}`,
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '30',
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: '100',
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
      const response = await app.http().get('/v1/health');
      expect({ call, status: response.status }).toEqual({ call, status: 200 });
      expect(response.headers['x-ratelimit-limit']).toBe('30');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(30 - call));
    }
    const refused = await first.http().get('/v1/health');
    expect(refused.status).toBe(429);
    expect(refused.body.type).toBe('https://errors.transcription.example/problems/rate-limit');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expectMatchesSpec(refused, 'getHealth');
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
});
