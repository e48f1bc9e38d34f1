/**
 * Sign-in and sessions: the refresh grace hands back the one successor (no second chain), a
 * signed-out or revoked sign-in's access tokens are refused at once, an `iat` in the future is refused, and
 * the cookies are `Secure` with the `__Secure-` prefix unless the environment is development or test.
 */
import { sign } from 'jsonwebtoken';
import { DataSource } from 'typeorm';
import request from 'supertest';
import { expectMatchesSpec } from '../support/openapi-contract';
import { ServiceProcess, freePort } from '../support/service-process';
import { cookieNamed, cookieValue, setCookies, createUserWithPassword } from '../support/sessions';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';
import { AuthConfig } from '../../src/auth/auth.config';

const PASSWORD = 'correct horse battery staple';
const PROBLEMS = 'https://errors.transcription.example/problems';
const GRACE_SECONDS = 60;

describe('Session tokens', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A long reuse grace, so "within the grace" holds however slow the machine is; "after the grace" is made
    // by moving the rotation time back in the database instead of waiting.
    t = await startTestApp({ ROLE: 'api', REFRESH_REUSE_GRACE_SECONDS: String(GRACE_SECONDS) });
  });
  afterAll(() => t.close());

  const database = (): DataSource => t.app.get(DataSource);
  const login = (email: string) => t.http().post('/v1/auth/login').send({ email, password: PASSWORD });
  const refresh = (token: string) => t.http().post('/v1/auth/refresh').set('Cookie', `stt_refresh=${token}`);
  const profileWithBearer = (accessToken: string) =>
    t.http().get('/v1/account/profile').set(bearer(accessToken));
  const profileWithCookie = (accessToken: string) =>
    t.http().get('/v1/account/profile').set('Cookie', `stt_session=${accessToken}`);

  /** Moves every rotation of the family (of `userId`'s sign-ins) back past the reuse grace. */
  async function leaveTheGrace(userId: string): Promise<void> {
    await database().query(
      `UPDATE refresh_tokens SET rotated_on = rotated_on - make_interval(secs => $2)
        WHERE user_id = $1 AND rotated_on IS NOT NULL`,
      [userId, GRACE_SECONDS + 1],
    );
  }

  /** Refresh tokens of the user that still refresh without being a replay (neither rotated nor revoked). */
  async function liveTokenCount(userId: string): Promise<number> {
    const [row] = await database().query<Array<{ count: number }>>(
      `SELECT count(*)::int AS count FROM refresh_tokens
        WHERE user_id = $1 AND rotated_on IS NULL AND revoked_on IS NULL`,
      [userId],
    );
    return row.count;
  }

  describe('refresh grace', () => {
    it('a replay within the grace gets the successor already issued: one chain, and a later replay is seen', async () => {
      const user = await createUserWithPassword(t, PASSWORD);
      const first = cookieValue(await login(user.email), 'stt_refresh');
      const owner = await refresh(first);
      expect(owner.status).toBe(200);
      const successor = cookieValue(owner, 'stt_refresh');

      // A thief (or a second tab) presents the rotated token twice within the grace.
      const replays = [await refresh(first), await refresh(first)];
      for (const replay of replays) {
        expect(replay.status).toBe(200);
        expectMatchesSpec(replay, 'refreshSession');
        expect(cookieValue(replay, 'stt_refresh')).toBe(successor);
        expect(cookieValue(replay, 'stt_session')).toBe(replay.body.data.accessToken);
      }
      expect(await liveTokenCount(user.userId)).toBe(1);

      // The owner goes on; the thief comes back after the grace with what the replay gave: a replay, seen.
      const next = await refresh(successor);
      expect(next.status).toBe(200);
      await leaveTheGrace(user.userId);
      const thief = await refresh(cookieValue(replays[1], 'stt_refresh'));
      expect(thief.status).toBe(401);
      expectMatchesSpec(thief, 'refreshSession');
      expect(thief.body.type).toBe(`${PROBLEMS}/invalid-refresh-token`);
      // That ended the whole sign-in, the owner's newest token and access token included.
      expect((await refresh(cookieValue(next, 'stt_refresh'))).status).toBe(401);
      expect((await profileWithBearer(next.body.data.accessToken as string)).status).toBe(401);
      expect(await liveTokenCount(user.userId)).toBe(0);
    });

    it('a replay within the grace of a signed-out sign-in stays refused', async () => {
      const user = await createUserWithPassword(t, PASSWORD);
      const first = cookieValue(await login(user.email), 'stt_refresh');
      const successor = cookieValue(await refresh(first), 'stt_refresh');
      await t.http().post('/v1/auth/logout').set('Cookie', `stt_refresh=${successor}`).expect(204);
      const replay = await refresh(first);
      expect(replay.status).toBe(401);
      expect(replay.body.type).toBe(`${PROBLEMS}/invalid-refresh-token`);
    });
  });

  describe('ending a sign-in ends its access tokens', () => {
    it('after logout the access token is refused as a Bearer header and as the stt_session cookie', async () => {
      const user = await createUserWithPassword(t, PASSWORD);
      const signedIn = await login(user.email);
      const accessToken = signedIn.body.data.accessToken as string;
      expect((await profileWithBearer(accessToken)).status).toBe(200);
      expect((await profileWithCookie(accessToken)).status).toBe(200);

      await t
        .http()
        .post('/v1/auth/logout')
        .set('Cookie', `stt_refresh=${cookieValue(signedIn, 'stt_refresh')}`)
        .expect(204);

      for (const response of [await profileWithBearer(accessToken), await profileWithCookie(accessToken)]) {
        expect(response.status).toBe(401);
        expectMatchesSpec(response, 'getProfile');
        expect(response.body.type).toBe(`${PROBLEMS}/invalid-token`);
        expect(response.body.detail).toContain('signed out');
      }
    });

    it('signing out one sign-in leaves the same user’s other sign-in working', async () => {
      const user = await createUserWithPassword(t, PASSWORD);
      const laptop = await login(user.email);
      const phone = await login(user.email);
      await t
        .http()
        .post('/v1/auth/logout')
        .set('Cookie', `stt_refresh=${cookieValue(laptop, 'stt_refresh')}`)
        .expect(204);
      expect((await profileWithBearer(laptop.body.data.accessToken as string)).status).toBe(401);
      expect((await profileWithBearer(phone.body.data.accessToken as string)).status).toBe(200);
    });

    it('a token naming no sign-in of its user is refused: sid not a UUID, unknown, or another user’s', async () => {
      const owner = await createUserWithPassword(t, PASSWORD);
      const other = await createUserWithPassword(t, PASSWORD);
      const [{ family_id: ownersSignIn }] = await database().query<Array<{ family_id: string }>>(
        'SELECT family_id FROM refresh_tokens WHERE user_id = $1',
        [(await login(owner.email)).body.data.user.id as string],
      );
      const withSid = (userId: string, sid: string) =>
        sign({ sub: userId, sid }, t.config.get(AuthConfig).JWT_SECRET, {
          algorithm: 'HS256',
          expiresIn: 600,
        });
      for (const token of [
        withSid(owner.userId, 'not-a-uuid'),
        withSid(owner.userId, '00000000-0000-4000-8000-000000000000'),
        withSid(other.userId, ownersSignIn),
      ]) {
        const response = await profileWithBearer(token);
        expect(response.status).toBe(401);
        expect(response.body.type).toBe(`${PROBLEMS}/invalid-token`);
      }
      expect((await profileWithBearer(withSid(owner.userId, ownersSignIn))).status).toBe(200);
    });

    it('reuse detection ends the access tokens of every refresh of the sign-in', async () => {
      const user = await createUserWithPassword(t, PASSWORD);
      const signedIn = await login(user.email);
      const first = cookieValue(signedIn, 'stt_refresh');
      const rotated = await refresh(first);
      expect((await profileWithBearer(rotated.body.data.accessToken as string)).status).toBe(200);
      await leaveTheGrace(user.userId);
      expect((await refresh(first)).status).toBe(401);
      for (const accessToken of [signedIn.body.data.accessToken, rotated.body.data.accessToken]) {
        const response = await profileWithBearer(accessToken as string);
        expect(response.status).toBe(401);
        expect(response.body.type).toBe(`${PROBLEMS}/invalid-token`);
      }
    });
  });

  describe('issue time', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const signed = (userId: string, iat: number) =>
      sign({ sub: userId, iat, exp: iat + 600 }, t.config.get(AuthConfig).JWT_SECRET, { algorithm: 'HS256' });

    it('refuses a token issued in the future (iat = now + 300 days, exp = iat + 600): 401 invalid-token', async () => {
      const workspace = await t.createWorkspace();
      const response = await profileWithBearer(signed(workspace.userId, now() + 300 * 86_400));
      expect(response.status).toBe(401);
      expectMatchesSpec(response, 'getProfile');
      expect(response.body.type).toBe(`${PROBLEMS}/invalid-token`);
      expect(response.body.detail).toContain('iat');
    });

    it('accepts an iat a few seconds ahead (clocks of two machines differ)', async () => {
      const workspace = await t.createWorkspace();
      expect((await profileWithBearer(signed(workspace.userId, now() + 30))).status).toBe(200);
    });
  });

  describe('cookies outside development and test', () => {
    it('NODE_ENV=production: all four cookies (session, refresh, known device, the dashboard signed-in hint) Secure, named with the __Secure- prefix, and read under that name only', async () => {
      const production = await startTestApp({ ROLE: 'api', NODE_ENV: 'production' });
      try {
        const user = await createUserWithPassword(production, PASSWORD);
        const signedIn = await production
          .http()
          .post('/v1/auth/login')
          .send({ email: user.email, password: PASSWORD });
        expect(signedIn.status).toBe(200);
        expectMatchesSpec(signedIn, 'login');
        expect(
          setCookies(signedIn)
            .map((cookie) => cookie.split('=')[0])
            .sort(),
        ).toEqual([
          '__Secure-stt_device',
          '__Secure-stt_refresh',
          '__Secure-stt_session',
          '__Secure-stt_signed_in',
        ]);
        for (const cookie of setCookies(signedIn)) expect(cookie.split('; ')).toContain('Secure');

        const accessToken = cookieValue(signedIn, '__Secure-stt_session');
        const byCookie = (name: string) =>
          production.http().get('/v1/account/profile').set('Cookie', `${name}=${accessToken}`);
        expect((await byCookie('__Secure-stt_session')).status).toBe(200);
        // The plain name could be planted by a page on plain HTTP: not read when the prefix is in use.
        expect((await byCookie('stt_session')).status).toBe(401);

        const refreshed = await production
          .http()
          .post('/v1/auth/refresh')
          .set('Cookie', `__Secure-stt_refresh=${cookieValue(signedIn, '__Secure-stt_refresh')}`);
        expect(refreshed.status).toBe(200);
        expectMatchesSpec(refreshed, 'refreshSession');
        const loggedOut = await production
          .http()
          .post('/v1/auth/logout')
          .set('Cookie', `__Secure-stt_refresh=${cookieValue(refreshed, '__Secure-stt_refresh')}`);
        expect(loggedOut.status).toBe(204);
        expect(cookieNamed(loggedOut, '__Secure-stt_session')).toMatch(/; Secure/);
        expect(cookieNamed(loggedOut, '__Secure-stt_refresh')).toMatch(/; Secure/);
      } finally {
        await production.close();
      }
    });

    it('COOKIE_SECURE=false under NODE_ENV=production: plain cookies, and the boot log warns', async () => {
      const service = await new ServiceProcess({
        ROLE: 'api',
        PORT: String(await freePort()),
        NODE_ENV: 'production',
        COOKIE_SECURE: 'false',
        REDIS_PREFIX: `${baseTestEnvironment().REDIS_PREFIX}-insecure-cookies`,
      }).start();
      try {
        const warning = service.output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { level?: string; msg?: string })
          .find((line) => line.msg?.includes('COOKIE_SECURE=false'));
        expect(warning?.level).toBe('warn');

        const user = await createUserWithPassword(t, PASSWORD);
        const signedIn = await request(`http://127.0.0.1:${service.env.PORT}`)
          .post('/v1/auth/login')
          .send({ email: user.email, password: PASSWORD });
        expect(signedIn.status).toBe(200);
        expect(
          setCookies(signedIn)
            .map((cookie) => cookie.split('=')[0])
            .sort(),
        ).toEqual(['stt_device', 'stt_refresh', 'stt_session', 'stt_signed_in']);
        for (const cookie of setCookies(signedIn)) expect(cookie.split('; ')).not.toContain('Secure');
      } finally {
        await service.stop();
      }
    });
  });
});
