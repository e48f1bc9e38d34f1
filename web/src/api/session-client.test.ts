import { describe, expect, it, vi } from 'vitest';
import { Session, SessionClient } from './session-client';

const session = (token: string): Session => ({
  accessToken: token,
  expiresIn: 900,
  user: { id: 'u', email: 'a@b.example' },
  workspace: { id: 'w', name: 'W' },
});
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** A fake server: /v1/auth/refresh answers from `refreshes`, other paths accept only `valid` tokens. */
function server(options: { refreshes: Response[]; valid: string[] }) {
  const calls: { path: string; auth: string | null }[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const auth = new Headers(init?.headers).get('Authorization');
    calls.push({ path, auth });
    if (path === '/v1/auth/refresh') return options.refreshes.shift() ?? json(401, {});
    if (path === '/v1/auth/login') return json(200, { data: session('t1') });
    return auth && options.valid.includes(auth)
      ? json(200, { ok: true })
      : json(401, { type: 'x/unauthorized' });
  };
  return { calls, fetchImpl };
}

describe('SessionClient', () => {
  it('sends the in-memory token, refreshes once on 401 and retries with the new token', async () => {
    const fake = server({ refreshes: [json(200, { data: session('t2') })], valid: ['Bearer t2'] });
    const client = new SessionClient(fake.fetchImpl);
    await client.signIn('a@b.example', 'pw');
    const answer = await client.json<{ ok: boolean }>('/v1/thing');
    expect(answer.ok).toBe(true);
    expect(fake.calls.map((call) => `${call.path} ${call.auth}`)).toEqual([
      '/v1/auth/login null',
      '/v1/thing Bearer t1',
      '/v1/auth/refresh null',
      '/v1/thing Bearer t2',
    ]);
    expect(client.accessToken).toBe('t2');
  });

  it('shares one refresh between calls failing at the same time', async () => {
    const fake = server({ refreshes: [json(200, { data: session('t2') })], valid: ['Bearer t2'] });
    const client = new SessionClient(fake.fetchImpl);
    await client.signIn('a@b.example', 'pw');
    await Promise.all([client.json('/v1/a'), client.json('/v1/b')]);
    expect(fake.calls.filter((call) => call.path === '/v1/auth/refresh')).toHaveLength(1);
  });

  it('asks the user to sign in again when the refresh is refused, then retries once', async () => {
    const fake = server({ refreshes: [json(401, {})], valid: ['Bearer t3'] });
    let asked = 0;
    const client = new SessionClient(fake.fetchImpl, async () => {
      asked += 1;
      return session('t3');
    });
    await client.signIn('a@b.example', 'pw');
    await expect(client.json('/v1/thing')).resolves.toEqual({ ok: true });
    expect(asked).toBe(1);
  });

  it('renews the session ahead of its expiry while the page is open, and stops after signing out', async () => {
    vi.useFakeTimers();
    try {
      const fake = server({
        refreshes: [json(200, { data: session('t2') }), json(200, { data: session('t3') })],
        valid: [],
      });
      const client = new SessionClient(fake.fetchImpl);
      await client.signIn('a@b.example', 'pw'); // expiresIn 900 s
      const refreshes = () => fake.calls.filter((call) => call.path === '/v1/auth/refresh').length;
      await vi.advanceTimersByTimeAsync(719_000);
      expect(refreshes()).toBe(0);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(refreshes()).toBe(1);
      expect(client.accessToken).toBe('t2');
      await vi.advanceTimersByTimeAsync(720_000); // the renewed session is renewed in turn
      expect(refreshes()).toBe(2);
      await client.signOut();
      await vi.advanceTimersByTimeAsync(3_600_000);
      expect(refreshes()).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives up with the 401 as an ApiError when the user cancels the dialog', async () => {
    const fake = server({ refreshes: [json(401, {})], valid: [] });
    const client = new SessionClient(fake.fetchImpl, async () => null);
    await expect(client.json('/v1/thing')).rejects.toMatchObject({ status: 401, slug: 'unauthorized' });
    expect(fake.calls.filter((call) => call.path === '/v1/thing')).toHaveLength(1);
  });
});
