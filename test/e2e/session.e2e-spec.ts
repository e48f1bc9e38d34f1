import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { expectMatchesSpec } from '../support/openapi-contract';
import { cookieNamed, cookieValue, createUserWithPassword, setCookies } from '../support/sessions';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const PASSWORD = 'correct horse battery staple';
const PROBLEMS = 'https://errors.transcription.example/problems';

/** A client address no other sign-in of this file has used, so per-IP failure counts never collide. */
let addressesUsed = 0;
const freshIp = (): string => {
  addressesUsed += 1;
  return `10.${Math.floor(addressesUsed / 250) % 250}.${(addressesUsed % 250) + 1}.7`;
};

/** The attributes of a set cookie, sorted, Expires left out (it is Max-Age as a date); no Secure here. */
function cookieAttributes(response: Response, name: string): string[] {
  const attributes = (cookieNamed(response, name) ?? '').split('; ').slice(1);
  expect(attributes.some((attribute) => attribute.startsWith('Expires='))).toBe(true);
  return attributes.filter((attribute) => !attribute.startsWith('Expires=')).sort();
}

describe('Dashboard sessions (login, refresh, logout, sign-up)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      ROLE: 'api',
      TRUST_PROXY: 'loopback',
      ALLOW_SIGNUP: 'true',
      // Short; the replay test moves the rotation back past it rather than waiting.
      REFRESH_REUSE_GRACE_SECONDS: '1',
    });
  });
  afterAll(() => t.close());

  /** A user with a password, in a workspace of their own. */
  const userWithPassword = () => createUserWithPassword(t, PASSWORD);

  const login = (body: object, ip = freshIp()) =>
    t.http().post('/v1/auth/login').set('X-Forwarded-For', ip).send(body);

  it('signs in with the right password: access token in the body, both cookies httpOnly and SameSite=Strict', async () => {
    const user = await userWithPassword();
    const response = await login({ email: user.email.toUpperCase(), password: PASSWORD });
    expect(response.status).toBe(200);
    expectMatchesSpec(response, 'login');
    expect(response.body.data).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 900,
      user: { id: user.userId, email: user.email },
      workspace: { id: user.workspaceId, name: 'Session tests' },
    });
    expect(response.headers['cache-control']).toBe('no-store');

    expect(cookieAttributes(response, 'stt_session')).toEqual([
      'HttpOnly',
      'Max-Age=900',
      'Path=/v1',
      'SameSite=Strict',
    ]);
    expect(cookieAttributes(response, 'stt_refresh')).toEqual([
      'HttpOnly',
      'Max-Age=2592000',
      'Path=/v1/auth',
      'SameSite=Strict',
    ]);
    expect(cookieValue(response, 'stt_session')).toBe(response.body.data.accessToken);
    // The page's hint that a session may be restored: readable by the page, no secret in it.
    expect(cookieAttributes(response, 'stt_signed_in')).toEqual([
      'Max-Age=2592000',
      'Path=/app',
      'SameSite=Strict',
    ]);
    expect(cookieValue(response, 'stt_signed_in')).toBe('1');

    const profile = await t
      .http()
      .get('/v1/account/profile')
      .set(bearer(response.body.data.accessToken as string));
    expect(profile.status).toBe(200);
    expect(profile.body.data.id).toBe(user.userId);
  });

  it('answers a wrong password and an unknown email alike: 401 invalid-credentials', async () => {
    const user = await userWithPassword();
    const wrong = await login({ email: user.email, password: 'not the password at all' });
    const unknown = await login({ email: `nobody-${randomUUID()}@example.com`, password: PASSWORD });
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expectMatchesSpec(response, 'login');
      expect(response.body.type).toBe(`${PROBLEMS}/invalid-credentials`);
      expect(setCookies(response)).toEqual([]);
    }
    expect(wrong.body.detail).toBe(unknown.body.detail);
  });

  it('refuses a user without a password like a wrong one', async () => {
    const workspace = await t.createWorkspace({ email: `nopass-${randomUUID()}@example.com` });
    const response = await login({ email: workspace.email, password: PASSWORD });
    expect(response.status).toBe(401);
    expect(response.body.type).toBe(`${PROBLEMS}/invalid-credentials`);
  });

  it('answers 422 validation for a body without a password', async () => {
    const response = await login({ email: 'someone@example.com' });
    expect(response.status).toBe(422);
    expectMatchesSpec(response, 'login');
  });

  it('answers 422 validation for an email with a NUL character (PostgreSQL text cannot hold it; was a 500)', async () => {
    const response = await login({ email: 'a\u0000b@example.com', password: 'whatever it is' });
    expect(response.status).toBe(422);
    expectMatchesSpec(response, 'login');
    expect(Object.keys(response.body.errors.fieldErrors)).toEqual(['email']);
  });

  // Throttling of sign-in and sign-up: login-throttle.e2e-spec.ts.

  describe('refresh tokens', () => {
    const refresh = (token?: string) => {
      const request = t.http().post('/v1/auth/refresh');
      return token === undefined ? request : request.set('Cookie', `stt_refresh=${token}`);
    };

    it('rotate on every refresh; a reused token revokes the whole family', async () => {
      const user = await userWithPassword();
      const first = cookieValue(await login({ email: user.email, password: PASSWORD }), 'stt_refresh');

      const rotated = await refresh(first);
      expect(rotated.status).toBe(200);
      expectMatchesSpec(rotated, 'refreshSession');
      expect(rotated.body.data.user).toEqual({ id: user.userId, email: user.email });
      const second = cookieValue(rotated, 'stt_refresh');
      expect(second).not.toBe(first);
      expect(cookieValue(rotated, 'stt_session')).toBe(rotated.body.data.accessToken);

      // Past the reuse grace (1 s here), the old token again is a replay. The rotation is moved back beyond
      // the grace rather than the test waiting on the clock and guessing a margin.
      await t.app
        .get(DataSource)
        .query(
          `UPDATE refresh_tokens SET rotated_on = rotated_on - interval '1 hour' WHERE user_id = $1 AND rotated_on IS NOT NULL`,
          [user.userId],
        );
      const replayed = await refresh(first);
      expect(replayed.status).toBe(401);
      expectMatchesSpec(replayed, 'refreshSession');
      expect(replayed.body.type).toBe(`${PROBLEMS}/invalid-refresh-token`);
      // The legitimate newest token died with the family.
      const afterReuse = await refresh(second);
      expect(afterReuse.status).toBe(401);
      expect(afterReuse.body.type).toBe(`${PROBLEMS}/invalid-refresh-token`);
    });

    it('two refreshes racing with one token (tabs loading at once) both get a session that goes on', async () => {
      const user = await userWithPassword();
      const first = cookieValue(await login({ email: user.email, password: PASSWORD }), 'stt_refresh');

      const [a, b] = await Promise.all([refresh(first), refresh(first)]);
      for (const answer of [a, b]) {
        expect(answer.status).toBe(200);
        expectMatchesSpec(answer, 'refreshSession');
      }
      // One successor for both (a second token would start a second chain that reuse detection
      // never sees); the browser's one cookie jar holds it either way.
      const [nextA, nextB] = [cookieValue(a, 'stt_refresh'), cookieValue(b, 'stt_refresh')];
      expect(nextA).toBe(nextB);
      // Neither tab was signed out: the token each one got refreshes again (at once again, like the tabs).
      const again = await Promise.all([refresh(nextA), refresh(nextB)]);
      expect(again.map((answer) => answer.status)).toEqual([200, 200]);
    });

    it('a signed-out token stays dead within the reuse grace', async () => {
      const user = await userWithPassword();
      const signedIn = await login({ email: user.email, password: PASSWORD });
      const first = cookieValue(signedIn, 'stt_refresh');
      expect((await refresh(first)).status).toBe(200);
      await t.http().post('/v1/auth/logout').set('Cookie', `stt_refresh=${first}`).expect(204);
      const again = await refresh(first);
      expect(again.status).toBe(401);
      expect(again.body.type).toBe(`${PROBLEMS}/invalid-refresh-token`);
    });

    it('answers 401 invalid-refresh-token without a cookie or with an unknown one', async () => {
      for (const response of [await refresh(), await refresh('not-a-token')]) {
        expect(response.status).toBe(401);
        expectMatchesSpec(response, 'refreshSession');
        expect(response.body.type).toBe(`${PROBLEMS}/invalid-refresh-token`);
      }
    });

    it('logout revokes the refresh token and clears both cookies', async () => {
      const user = await userWithPassword();
      const token = cookieValue(await login({ email: user.email, password: PASSWORD }), 'stt_refresh');
      const response = await t.http().post('/v1/auth/logout').set('Cookie', `stt_refresh=${token}`);
      expect(response.status).toBe(204);
      expectMatchesSpec(response, 'logout');
      expect(cookieNamed(response, 'stt_session')).toMatch(
        /^stt_session=; Path=\/v1; Expires=Thu, 01 Jan 1970/,
      );
      expect(cookieNamed(response, 'stt_refresh')).toMatch(
        /^stt_refresh=; Path=\/v1\/auth; Expires=Thu, 01 Jan 1970/,
      );
      expect(cookieNamed(response, 'stt_signed_in')).toMatch(
        /^stt_signed_in=; Path=\/app; Expires=Thu, 01 Jan 1970/,
      );
      expect((await refresh(token)).status).toBe(401);
      // Without a cookie it still answers 204.
      expect((await t.http().post('/v1/auth/logout')).status).toBe(204);
    });
  });

  describe('sign-up (ALLOW_SIGNUP=true here)', () => {
    it('creates a workspace and signs in: 201, and the password then works', async () => {
      const email = `signup-${randomUUID()}@example.com`;
      const response = await t
        .http()
        .post('/v1/auth/signup')
        .send({ email, password: PASSWORD, workspaceName: 'Signed up' });
      expect(response.status).toBe(201);
      expectMatchesSpec(response, 'signup');
      expect(response.body.data.workspace.name).toBe('Signed up');
      expect(cookieNamed(response, 'stt_refresh')).toBeDefined();
      expect((await login({ email, password: PASSWORD })).status).toBe(200);

      const again = await t
        .http()
        .post('/v1/auth/signup')
        .send({ email, password: PASSWORD, workspaceName: 'Twice' });
      expect(again.status).toBe(422);
      expectMatchesSpec(again, 'signup');
    });

    it('two sign-ups racing with one email: one 201, the other 422 (never a 500)', async () => {
      const email = `race-${randomUUID()}@example.com`;
      const attempts = await Promise.all(
        [1, 2].map(() =>
          t.http().post('/v1/auth/signup').send({ email, password: PASSWORD, workspaceName: 'Race' }),
        ),
      );
      expect(attempts.map((response) => response.status).sort()).toEqual([201, 422]);
    });

    it('refuses a password shorter than 12 characters (422)', async () => {
      const response = await t
        .http()
        .post('/v1/auth/signup')
        .send({ email: `short-${randomUUID()}@example.com`, password: 'elevenchars', workspaceName: 'W' });
      expect(response.status).toBe(422);
      expectMatchesSpec(response, 'signup');
      expect(Object.keys(response.body.errors.fieldErrors)).toEqual(['password']);
    });
  });

  describe('sign-up off (the default)', () => {
    let closed: TestApp;
    beforeAll(async () => {
      closed = await startTestApp({ ROLE: 'api' });
    });
    afterAll(() => closed.close());

    it('answers 404 not-found whatever the body', async () => {
      for (const body of [
        {},
        { email: `x-${randomUUID()}@example.com`, password: PASSWORD, workspaceName: 'W' },
      ]) {
        const response = await closed.http().post('/v1/auth/signup').send(body);
        expect(response.status).toBe(404);
        expectMatchesSpec(response, 'signup');
      }
    });
  });
});
