import { Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { InjectRedis } from '../../common/redis/redis.module';
import { ProblemException } from '../../common/problem/problem.exception';
import { AppConfig } from '../../config/app-config';

/**
 * Counts failed sign-ins in Redis (shared by every API process), per account and per client IP, in a fixed
 * window that starts at the first failure. At the limit every attempt is refused with 429 before the
 * password is even checked, so guessing stops; a successful sign-in clears the account's count. Redis down:
 * sign-in fails (503) rather than allowing unmetered guessing.
 */
@Injectable()
export class LoginThrottleService {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {}

  /** Throws 429 `rate-limit` with Retry-After while the account or the IP is at its limit. */
  async assertAllowed(email: string, ip: string): Promise<void> {
    for (const [key, limit] of this.buckets(email, ip)) {
      const failures = Number((await this.redis.get(key)) ?? 0);
      if (failures < limit) continue;
      const retryAfter = Math.max(1, await this.redis.ttl(key));
      throw new ProblemException(
        'rate-limit',
        `Too many failed sign-ins; retry in ${retryAfter} s.`,
        {},
        { 'Retry-After': String(retryAfter) },
      );
    }
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    const window = this.config.LOGIN_FAILURE_WINDOW_SECONDS;
    const pipeline = this.redis.multi();
    for (const [key] of this.buckets(email, ip)) {
      // The window runs from the first failure (NX); INCR keeps the expiry, so later ones do not extend it.
      pipeline.set(key, 0, 'EX', window, 'NX');
      pipeline.incr(key);
    }
    await pipeline.exec();
  }

  async recordSuccess(email: string): Promise<void> {
    await this.redis.del(this.accountKey(email));
  }

  private buckets(email: string, ip: string): Array<[string, number]> {
    return [
      [this.accountKey(email), this.config.LOGIN_MAX_FAILURES_PER_ACCOUNT],
      [`${this.config.REDIS_PREFIX}:login-failures:ip:${ip}`, this.config.LOGIN_MAX_FAILURES_PER_IP],
    ];
  }

  private accountKey(email: string): string {
    return `${this.config.REDIS_PREFIX}:login-failures:account:${email}`;
  }
}
