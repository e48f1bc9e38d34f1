/**
 * Ending a sign-in wins every race with a refresh (issue 31): a sign-out, a password reset and reuse detection
 * fired while a refresh of the same sign-in rotates its token leave nothing of the sign-in alive: no access
 * token of any answer, no successor refresh token. Each race runs many times over real HTTP; what is asserted
 * is the outcome of every run, never a timing.
 */
import { DataSource } from 'typeorm';
import { UserPasswordService } from '../../src/auth/session/user-password.service';
import { createUserWithPassword } from '../support/sessions';
import { startTestApp, TestApp } from '../support/test-app';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a different long passphrase';
const RUNS = 40;
const GRACE_SECONDS = 60;

/** One HTTP answer as the race sees it: status, body, and the refresh cookie it set. */
interface Answer {
  status: number;
  accessToken: string | null;
  refreshToken: string | null;
}

describe('Ending a sign-in wins every race with a refresh', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api', REFRESH_REUSE_GRACE_SECONDS: String(GRACE_SECONDS) });
    base = `http://127.0.0.1:${await t.listeningPort()}`;
  });
  afterAll(() => t.close());

  /** A real socket per request (fetch), so the requests of a race are in flight together. */
  async function call(path: string, init: { cookie?: string; body?: object } = {}): Promise<Answer> {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        ...(init.cookie === undefined ? {} : { Cookie: `stt_refresh=${init.cookie}` }),
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    const body = text ? (JSON.parse(text) as { data?: { accessToken?: string } }) : {};
    const refreshCookie = response.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith('stt_refresh=') && !cookie.startsWith('stt_refresh=;'));
    return {
      status: response.status,
      accessToken: body.data?.accessToken ?? null,
      refreshToken: refreshCookie ? refreshCookie.slice('stt_refresh='.length).split(';')[0] : null,
    };
  }

  const login = (email: string, password = PASSWORD) => call('/v1/auth/login', { body: { email, password } });
  const refresh = (token: string) => call('/v1/auth/refresh', { cookie: token });
  const logout = (token: string) => call('/v1/auth/logout', { cookie: token });

  async function profileStatus(accessToken: string): Promise<number> {
    const response = await fetch(`${base}/v1/account/profile`, {
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** What a run left alive of the sign-ins, added up over the runs of a race. */
  class Tally {
    runs = 0;
    runsWithSurvivors = 0;
    accessTokensAlive = 0;
    refreshTokensAlive = 0;

    /**
     * Every access token any answer of the run carried (GET /v1/account/profile must be 401) and every refresh
     * token an answer set (refreshing it must be 401).
     */
    async check(answers: Answer[]): Promise<void> {
      let alive = 0;
      for (const answer of answers) {
        if (answer.accessToken && (await profileStatus(answer.accessToken)) !== 401) {
          this.accessTokensAlive += 1;
          alive += 1;
        }
      }
      for (const answer of answers) {
        if (answer.refreshToken && (await refresh(answer.refreshToken)).status !== 401) {
          this.refreshTokensAlive += 1;
          alive += 1;
        }
      }
      this.runs += 1;
      if (alive > 0) this.runsWithSurvivors += 1;
    }

    expectNothingSurvived(): void {
      expect(this).toEqual({ runs: RUNS, runsWithSurvivors: 0, accessTokensAlive: 0, refreshTokensAlive: 0 });
    }
  }

  async function liveRefreshTokens(userId: string): Promise<number> {
    const [row] = await t.app
      .get(DataSource)
      .query<Array<{ count: number }>>(
        'SELECT count(*)::int AS count FROM refresh_tokens WHERE user_id = $1 AND revoked_on IS NULL',
        [userId],
      );
    return row.count;
  }

  it(`sign-out and refresh of the same cookie fired together, ${RUNS} times: the sign-out always wins`, async () => {
    const user = await createUserWithPassword(t, PASSWORD);
    const tally = new Tally();
    for (let run = 0; run < RUNS; run += 1) {
      const signedIn = await login(user.email);
      expect(signedIn.status).toBe(200);
      const cookie = signedIn.refreshToken as string;
      const [refreshed, signedOut] = await Promise.all([refresh(cookie), logout(cookie)]);
      expect(signedOut.status).toBe(204);
      expect([200, 401]).toContain(refreshed.status);
      await tally.check([signedIn, refreshed]);
    }
    tally.expectNothingSurvived();
    expect(await liveRefreshTokens(user.userId)).toBe(0);
  });

  it(`reuse detection racing the owner's refresh, ${RUNS} times: the replay ends the whole sign-in`, async () => {
    const user = await createUserWithPassword(t, PASSWORD);
    const database = t.app.get(DataSource);
    const tally = new Tally();
    for (let run = 0; run < RUNS; run += 1) {
      const signedIn = await login(user.email);
      const stolen = signedIn.refreshToken as string;
      const owners = await refresh(stolen);
      expect(owners.status).toBe(200);
      // The copy comes back after the reuse grace: moved back in the database rather than waited for.
      await database.query(
        `UPDATE refresh_tokens SET rotated_on = rotated_on - make_interval(secs => $2)
          WHERE user_id = $1 AND rotated_on IS NOT NULL`,
        [user.userId, GRACE_SECONDS + 1],
      );
      const [replayed, ownersNext] = await Promise.all([
        refresh(stolen),
        refresh(owners.refreshToken as string),
      ]);
      expect(replayed.status).toBe(401);
      expect([200, 401]).toContain(ownersNext.status);
      await tally.check([signedIn, owners, ownersNext]);
    }
    tally.expectNothingSurvived();
    expect(await liveRefreshTokens(user.userId)).toBe(0);
  });

  it(`a new password racing refreshes and a sign-in with the old password, ${RUNS} times: nothing of the old password survives`, async () => {
    // The service `user:set-password` calls (test/e2e/cli-passwords.e2e-spec.ts runs the command itself).
    const passwords = t.app.get(UserPasswordService);
    const { email } = await createUserWithPassword(t, PASSWORD);
    const tally = new Tally();
    for (let run = 0; run < RUNS; run += 1) {
      const [oldPassword, newPassword] = run % 2 === 0 ? [PASSWORD, NEW_PASSWORD] : [NEW_PASSWORD, PASSWORD];
      const signedIn = await login(email, oldPassword);
      expect(signedIn.status).toBe(200);

      // A page keeps refreshing its sign-in while the operator sets a new password and another browser signs
      // in with the old one.
      let resetDone = false;
      const reset = passwords.setPassword(email, newPassword).finally(() => (resetDone = true));
      const chain = (async () => {
        const answers: Answer[] = [];
        let cookie = signedIn.refreshToken as string;
        do {
          const answer = await refresh(cookie);
          answers.push(answer);
          if (answer.status !== 200) break;
          cookie = answer.refreshToken as string;
        } while (!resetDone);
        return answers;
      })();
      const [, refreshes, lateSignIn] = await Promise.all([reset, chain, login(email, oldPassword)]);
      expect([200, 401]).toContain(lateSignIn.status);
      await tally.check([signedIn, ...refreshes, lateSignIn]);
    }
    tally.expectNothingSurvived();
  });
});
