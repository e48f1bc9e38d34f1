import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { eventually } from '../support/chaos-harness';
import { expectMatchesSpec } from '../support/openapi-contract';
import { cookieNamed, createUserWithPassword } from '../support/sessions';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
const PROBLEMS = 'https://errors.transcription.example/problems';
const METRICS_TOKEN = `metrics-${randomUUID()}`;

/** Per (account, client) pair before delays start, and the account-wide and per-IP ceilings of this app. */
const PER_CLIENT = 3;
const ACCOUNT_CEILING = 6;
const IP_CEILING = 10;
const SIGNUPS_PER_IP = 4;
const SIGNUPS_PER_EMAIL = 3;

/** A client address no other test of this file has used (session.e2e-spec's end in .7, these in .19). */
let addressesUsed = 0;
const freshIp = (): string => {
  addressesUsed += 1;
  return `10.${Math.floor(addressesUsed / 250) % 250}.${(addressesUsed % 250) + 1}.19`;
};

function deviceCookie(response: Response): string | undefined {
  return cookieNamed(response, 'stt_device');
}

const retryAfter = (response: Response): number => Number(response.headers['retry-after']);

/** Sign-in throttling and sign-up limits: counted before any password check, per account and client. */
describe('Sign-in throttle and sign-up limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      ROLE: 'api',
      TRUST_PROXY: 'loopback',
      ALLOW_SIGNUP: 'true',
      METRICS_TOKEN,
      LOGIN_MAX_FAILURES_PER_CLIENT: String(PER_CLIENT),
      // Long, so that no wait ends while a test runs, however slow the machine (the growth test has its own app).
      LOGIN_BACKOFF_BASE_SECONDS: '600',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: String(ACCOUNT_CEILING),
      LOGIN_MAX_FAILURES_PER_IP: String(IP_CEILING),
      SIGNUP_MAX_PER_IP: String(SIGNUPS_PER_IP),
      SIGNUP_MAX_PER_EMAIL: String(SIGNUPS_PER_EMAIL),
    });
  });
  afterAll(() => t.close());

  const userWithPassword = () => createUserWithPassword(t, PASSWORD);

  const login = (body: { email: string; password: string }, ip: string, cookie?: string, app = t) => {
    const call = app.http().post('/v1/auth/login').set('X-Forwarded-For', ip);
    return (cookie ? call.set('Cookie', cookie.split(';')[0]) : call).send(body);
  };

  /** argon2 verifications sign-in has run so far, read from /metrics (the counter sits next to the verify call). */
  async function passwordVerifications(): Promise<number> {
    const text = (await t.http().get('/metrics').set(bearer(METRICS_TOKEN)).expect(200)).text;
    return [...text.matchAll(/^stt_password_verifications_total\{[^}]*\} (\d+)$/gm)].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
  }

  /** Wrong passwords from one client until it is refused; the statuses seen, the refusal last. */
  async function failUntilThrottled(
    email: string,
    ip: string,
    app = t,
  ): Promise<{ statuses: number[]; refused: Response }> {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await login({ email, password: WRONG }, ip, undefined, app);
      statuses.push(response.status);
      if (response.status === 429) return { statuses, refused: response };
    }
    throw new Error(`20 wrong passwords from ${ip} were never throttled: ${statuses.join(', ')}`);
  }

  it('22 concurrent wrong passwords for one account from one client: only LOGIN_MAX_FAILURES_PER_CLIENT are checked, the rest 429', async () => {
    const user = await userWithPassword();
    const ip = freshIp();
    const verificationsBefore = await passwordVerifications();
    const answers = await Promise.all(
      Array.from({ length: 22 }, () => login({ email: user.email, password: WRONG }, ip)),
    );
    const verified = (await passwordVerifications()) - verificationsBefore;
    const count = (status: number) => answers.filter((response) => response.status === status).length;
    expect({ 401: count(401), 429: count(429), verified }).toEqual({
      401: PER_CLIENT,
      429: 22 - PER_CLIENT,
      verified: PER_CLIENT,
    });
    for (const response of answers) {
      expectMatchesSpec(response, 'login');
      if (response.status === 429) {
        expect(response.body.type).toBe(`${PROBLEMS}/rate-limit`);
        expect(retryAfter(response)).toBeGreaterThan(0);
      }
    }
  });

  it('an attacker being throttled does not lock the owner out: the right password from another client is 200', async () => {
    const user = await userWithPassword();
    const attacker = freshIp();
    const { statuses } = await failUntilThrottled(user.email, attacker);
    const owner = await login({ email: user.email, password: PASSWORD }, freshIp());
    expectMatchesSpec(owner, 'login');
    // The owner's success is not the attacker's: that client stays throttled.
    const attackerAfter = await login({ email: user.email, password: WRONG }, attacker);
    expect({ attacker: statuses, owner: owner.status, attackerAfter: attackerAfter.status }).toEqual({
      attacker: [...Array<number>(PER_CLIENT).fill(401), 429],
      owner: 200,
      attackerAfter: 429,
    });
  });

  it('a successful sign-in clears its client’s count', async () => {
    const user = await userWithPassword();
    const ip = freshIp();
    for (let round = 0; round < 2; round++) {
      for (let attempt = 0; attempt < PER_CLIENT - 1; attempt++) {
        expect((await login({ email: user.email, password: WRONG }, ip)).status).toBe(401);
      }
      expect((await login({ email: user.email, password: PASSWORD }, ip)).status).toBe(200);
    }
  });

  it('caps distributed guessing per account for new clients; a device that signed in before is exempt, from any address', async () => {
    const user = await userWithPassword();
    const signedIn = await login({ email: user.email, password: PASSWORD }, freshIp());
    expect(signedIn.status).toBe(200);
    const device = deviceCookie(signedIn);
    expect(device).toBeDefined();
    expect(device).toMatch(/; Path=\/v1\/auth\/login;/);
    expect(device).toMatch(/; HttpOnly;/);
    expect(device).toMatch(/; SameSite=Strict$/);

    // Attackers from several addresses use up the account's ceiling for clients it does not know.
    const attackers = [freshIp(), freshIp()];
    for (const ip of attackers) {
      for (let attempt = 0; attempt < ACCOUNT_CEILING / attackers.length; attempt++) {
        expect((await login({ email: user.email, password: WRONG }, ip)).status).toBe(401);
      }
    }
    const capped = await login({ email: user.email, password: WRONG }, freshIp());
    expect(capped.status).toBe(429);
    expectMatchesSpec(capped, 'login');
    // A new client is capped too, even with the right password (the price of the ceiling, see decisions.md) ...
    expect((await login({ email: user.email, password: PASSWORD }, freshIp())).status).toBe(429);
    // ... but the owner's known device is not, from a new address or from an attacker's.
    expect((await login({ email: user.email, password: PASSWORD }, freshIp(), device)).status).toBe(200);
    expect((await login({ email: user.email, password: PASSWORD }, attackers[0], device)).status).toBe(200);

    // Another account's device cookie does not count as known for this one.
    const other = await userWithPassword();
    const otherDevice = deviceCookie(await login({ email: other.email, password: PASSWORD }, freshIp()));
    expect((await login({ email: user.email, password: PASSWORD }, freshIp(), otherDevice)).status).toBe(429);
  });

  it('caps failures per IP across accounts for clients it does not know; known devices and other addresses are unaffected', async () => {
    const ip = freshIp();
    const user = await userWithPassword();
    const device = deviceCookie(await login({ email: user.email, password: PASSWORD }, freshIp()));
    for (let attempt = 0; attempt < IP_CEILING; attempt++) {
      const response = await login(
        { email: `guess-${attempt}-${randomUUID()}@example.com`, password: 'x' },
        ip,
      );
      expect(response.status).toBe(401);
    }
    const refused = await login({ email: user.email, password: PASSWORD }, ip);
    expect(refused.status).toBe(429);
    expect(retryAfter(refused)).toBeGreaterThan(0);
    expect((await login({ email: user.email, password: PASSWORD }, ip, device)).status).toBe(200);
    expect((await login({ email: user.email, password: PASSWORD }, freshIp())).status).toBe(200);
  });

  describe('with a first wait of 1 s', () => {
    let fast: TestApp;
    beforeAll(async () => {
      fast = await startTestApp({
        ROLE: 'api',
        TRUST_PROXY: 'loopback',
        LOGIN_MAX_FAILURES_PER_CLIENT: String(PER_CLIENT),
        LOGIN_BACKOFF_BASE_SECONDS: '1',
      });
    });
    afterAll(() => fast.close());

    it('the delays of a throttled client grow: Retry-After 1, 2, 4 s after each further failure (base 1 s here)', async () => {
      const user = await userWithPassword();
      const attacker = freshIp();
      const { refused } = await failUntilThrottled(user.email, attacker, fast);
      const delays = [retryAfter(refused)];
      for (let round = 0; round < 2; round++) {
        // Wait until the client is let in again: that attempt is checked (401) and the next one refused.
        const admitted = await eventually(
          'the throttled client is admitted again',
          async () => {
            const response = await login({ email: user.email, password: WRONG }, attacker, undefined, fast);
            return response.status === 429 ? null : response;
          },
          15_000,
          100,
        );
        expect(admitted.status).toBe(401);
        const next = await login({ email: user.email, password: WRONG }, attacker, undefined, fast);
        expect(next.status).toBe(429);
        expectMatchesSpec(next, 'login');
        delays.push(retryAfter(next));
      }
      expect(delays).toEqual([1, 2, 4]);
    });
  });

  describe('sign-up', () => {
    const signup = (email: string, ip: string) =>
      t
        .http()
        .post('/v1/auth/signup')
        .set('X-Forwarded-For', ip)
        .send({ email, password: PASSWORD, workspaceName: 'Burst' });

    it('a burst from one client: SIGNUP_MAX_PER_IP are served, the rest 429 with Retry-After', async () => {
      const ip = freshIp();
      const answers = await Promise.all(
        Array.from({ length: SIGNUPS_PER_IP + 3 }, () => signup(`burst-${randomUUID()}@example.com`, ip)),
      );
      const statuses = answers.map((response) => response.status).sort();
      expect(statuses).toEqual([...Array<number>(SIGNUPS_PER_IP).fill(201), ...Array<number>(3).fill(429)]);
      for (const response of answers) {
        expectMatchesSpec(response, 'signup');
        // A sign-up signs in: its browser is a known device of the new account.
        if (response.status === 201) expect(deviceCookie(response)).toBeDefined();
        if (response.status === 429) {
          expect(response.body.type).toBe(`${PROBLEMS}/rate-limit`);
          expect(retryAfter(response)).toBeGreaterThan(0);
        }
      }
      // Another client is not affected.
      expect((await signup(`burst-${randomUUID()}@example.com`, freshIp())).status).toBe(201);
    });

    it('one email tried from many clients: SIGNUP_MAX_PER_EMAIL attempts, then 429 whoever asks', async () => {
      const email = `probe-${randomUUID()}@example.com`;
      const statuses: number[] = [];
      for (let attempt = 0; attempt < SIGNUPS_PER_EMAIL + 2; attempt++) {
        const response = await signup(attempt % 2 === 0 ? email : email.toUpperCase(), freshIp());
        expectMatchesSpec(response, 'signup');
        statuses.push(response.status);
      }
      expect(statuses).toEqual([201, ...Array<number>(SIGNUPS_PER_EMAIL - 1).fill(422), 429, 429]);
    });
  });
});
