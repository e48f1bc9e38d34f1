import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { InjectRedis } from '../../common/redis/redis.module';
import { ProblemException } from '../../common/problem/problem.exception';
import { RedisConfig } from '../../common/redis/redis.config';
import { DashboardSessionConfig } from './dashboard-session.config';
import { clientNetwork } from './client-network';
import { KnownDeviceService } from './known-device.service';

/** Who is signing in, as far as throttling goes: the address (TRUST_PROXY applied) and the stt_device cookie. */
export interface SignInClient {
  ip: string;
  deviceToken: string | null;
}

/** An attempt that was let through (and counted as a failure until `succeeded` says otherwise). */
export interface AdmittedAttempt {
  keys: [pair: string, account: string, ip: string];
  knownDevice: boolean;
}

/**
 * Admits one sign-in attempt, atomically, before any password is checked. KEYS: the (account, client) pair's
 * hash {failures, blockedUntil}, the account's and the IP's failure counters (fixed windows). ARGV: per-client
 * failures before waits, first wait (ms), longest wait (ms), window (ms), account ceiling, IP ceiling, and 1
 * for a known device (exempt from both ceilings). Returns 0 when admitted, else the milliseconds to wait.
 * Counting before the check is what makes concurrent attempts unable to pass the limit.
 */
const ADMIT_SIGN_IN = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[4])
local known = ARGV[7] == '1'
local wait = tonumber(redis.call('HGET', KEYS[1], 'blockedUntil') or '0') - now
if not known then
  for i = 2, 3 do
    if tonumber(redis.call('GET', KEYS[i]) or '0') >= tonumber(ARGV[3 + i]) then
      local left = redis.call('PTTL', KEYS[i])
      if left < 0 then left = window end
      wait = math.max(wait, left)
    end
  end
end
if wait > 0 then return wait end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local perClient = tonumber(ARGV[1])
local blocked = 0
if failures >= perClient then
  blocked = math.floor(math.min(tonumber(ARGV[2]) * 2 ^ (failures - perClient), tonumber(ARGV[3])))
  redis.call('HSET', KEYS[1], 'blockedUntil', now + blocked)
end
redis.call('PEXPIRE', KEYS[1], blocked + window)
if not known then
  for i = 2, 3 do
    redis.call('SET', KEYS[i], 0, 'PX', window, 'NX')
    redis.call('INCR', KEYS[i])
  end
end
return 0
`;

/**
 * A wrong password: the client's wait (if it is past its free failures) starts again from now, so it is
 * measured from the answer rather than from the admission. KEYS: the pair; ARGV as ADMIT_SIGN_IN's first four.
 */
const SIGN_IN_FAILED = `
local failures = tonumber(redis.call('HGET', KEYS[1], 'failures') or '0')
local perClient = tonumber(ARGV[1])
if failures < perClient then return 0 end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local blocked = math.floor(math.min(tonumber(ARGV[2]) * 2 ^ (failures - perClient), tonumber(ARGV[3])))
local blockedUntil = math.max(tonumber(redis.call('HGET', KEYS[1], 'blockedUntil') or '0'), now + blocked)
redis.call('HSET', KEYS[1], 'blockedUntil', blockedUntil)
redis.call('PEXPIRE', KEYS[1], blockedUntil - now + tonumber(ARGV[4]))
return 0
`;

/** The right password: the pair starts over, and the ceilings take back the attempt they counted. */
const SIGN_IN_SUCCEEDED = `
redis.call('DEL', KEYS[1])
if ARGV[1] ~= '1' then
  for i = 2, 3 do
    if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
  end
end
return 0
`;

/**
 * Counts each key's attempts in a fixed window from its first one (ARGV[1] ms), refusing when any is at its
 * limit (ARGV[1 + i] for KEYS[i]); a refused attempt is not counted. Returns 0 or the milliseconds to wait.
 */
const ADMIT_IN_WINDOWS = `
local window = tonumber(ARGV[1])
local wait = 0
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') >= tonumber(ARGV[1 + i]) then
    local left = redis.call('PTTL', KEYS[i])
    if left < 0 then left = window end
    wait = math.max(wait, left)
  end
end
if wait > 0 then return wait end
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], 0, 'PX', window, 'NX')
  redis.call('INCR', KEYS[i])
end
return 0
`;

/**
 * Sign-in and sign-up throttling in Redis (shared by every API process); docs/decisions.md, "Sign-in
 * throttle". Sign-in: each (account, client) pair has LOGIN_MAX_FAILURES_PER_CLIENT free failures, then
 * waits (from its last failed answer) that double with each failure; a client is a device that signed in to the account before (its
 * stt_device cookie), else its network (IPv4 address, IPv6 /64). Clients that are not known devices also
 * share a ceiling per account and per IP. Every attempt is counted before its password is checked, so
 * concurrent attempts cannot pass the limit. Redis down: sign-in fails (503) rather than allowing unmetered
 * guessing.
 */
@Injectable()
export class LoginThrottleService {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly config: DashboardSessionConfig,
    private readonly redisConfig: RedisConfig,
    private readonly devices: KnownDeviceService,
  ) {}

  /** Counts the attempt as a failure in advance and lets it through, or throws 429 with Retry-After. */
  async admitSignIn(email: string, client: SignInClient): Promise<AdmittedAttempt> {
    const account = this.emailDigest(email);
    const device = this.devices.recognise(email, client.deviceToken);
    const network = clientNetwork(client.ip);
    const attempt: AdmittedAttempt = {
      keys: [
        this.key('login:client', account, device ? `device:${device}` : `ip:${network}`),
        this.key('login:account', account),
        this.key('login:ip', network),
      ],
      knownDevice: device !== null,
    };
    const config = this.config;
    const waitMs = await this.redis.eval(
      ADMIT_SIGN_IN,
      3,
      ...attempt.keys,
      ...this.backoff(),
      config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      config.LOGIN_MAX_FAILURES_PER_IP,
      attempt.knownDevice ? 1 : 0,
    );
    refuseWhileWaiting(Number(waitMs), 'Too many failed sign-ins');
    return attempt;
  }

  /** The attempt had a wrong password (it is already counted): the client's wait runs from now. */
  async signInFailed(attempt: AdmittedAttempt): Promise<void> {
    await this.redis.eval(SIGN_IN_FAILED, 1, attempt.keys[0], ...this.backoff());
  }

  /** The attempt had the right password: it was no failure, and its client starts over. */
  async signInSucceeded(attempt: AdmittedAttempt): Promise<void> {
    await this.redis.eval(SIGN_IN_SUCCEEDED, 3, ...attempt.keys, attempt.knownDevice ? 1 : 0);
  }

  /** Counts a sign-up per client IP and per email, or throws 429 with Retry-After over either limit. */
  async admitSignUp(email: string, ip: string): Promise<void> {
    const waitMs = await this.redis.eval(
      ADMIT_IN_WINDOWS,
      2,
      this.key('signup:ip', clientNetwork(ip)),
      this.key('signup:email', this.emailDigest(email)),
      this.config.SIGNUP_WINDOW_SECONDS * 1000,
      this.config.SIGNUP_MAX_PER_IP,
      this.config.SIGNUP_MAX_PER_EMAIL,
    );
    refuseWhileWaiting(Number(waitMs), 'Too many sign-ups');
  }

  /** Free failures per client, first and longest wait (ms), window (ms): the pair scripts' first ARGV. */
  private backoff(): number[] {
    const config = this.config;
    return [
      config.LOGIN_MAX_FAILURES_PER_CLIENT,
      config.LOGIN_BACKOFF_BASE_SECONDS * 1000,
      config.LOGIN_BACKOFF_MAX_SECONDS * 1000,
      config.LOGIN_FAILURE_WINDOW_SECONDS * 1000,
    ];
  }

  /** Keys name accounts by a digest of the email: no address sits in Redis in clear. */
  private emailDigest(email: string): string {
    return createHash('sha256').update(email, 'utf8').digest('base64url').slice(0, 22);
  }

  private key(...parts: string[]): string {
    return [this.redisConfig.REDIS_PREFIX, ...parts].join(':');
  }
}

function refuseWhileWaiting(waitMs: number, what: string): void {
  if (waitMs <= 0) return;
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  throw new ProblemException(
    'rate-limit',
    `${what}; retry in ${retryAfter} s.`,
    {},
    { 'Retry-After': String(retryAfter) },
  );
}
