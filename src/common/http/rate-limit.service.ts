import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerStorage } from '@nestjs/throttler';
import { RateLimitConfig } from './rate-limit.config';
import { RedisConfig } from '../redis/redis.config';

const WINDOW_MS = 60_000;

/** Who a request is counted against: a client IP, or an API key or user of a workspace. */
export type RateLimitCaller =
  { authenticated: false; key: string } | { authenticated: true; key: string; workspaceId: string };

export interface RateLimitDecision {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  /** Set when the call is over the limit: seconds to wait. */
  retryAfterSeconds: number | null;
  /** The bucket this decision describes: the caller's own (IP, key or user), or its workspace's. */
  scope: 'caller' | 'workspace';
}

/**
 * Fixed one-minute windows in Redis (shared by every API process), through @nestjs/throttler's storage.
 * An authenticated call counts twice: against its key (or user), RATE_LIMIT_AUTHENTICATED_PER_MINUTE, and
 * against its workspace, RATE_LIMIT_WORKSPACE_PER_MINUTE, so more keys never buy more rate. A call its own
 * bucket refuses is not counted against the workspace (one runaway key does not spend the others' budget).
 * The decision reported is the refusing bucket, else the one with fewer calls left.
 */
@Injectable()
export class RateLimitService {
  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly config: RateLimitConfig,
    private readonly redisConfig: RedisConfig,
  ) {}

  async consume(caller: RateLimitCaller): Promise<RateLimitDecision> {
    if (!caller.authenticated) {
      return this.hit(caller.key, this.config.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE, 'caller');
    }
    const own = await this.hit(caller.key, this.config.RATE_LIMIT_AUTHENTICATED_PER_MINUTE, 'caller');
    if (own.retryAfterSeconds !== null) return own;
    const shared = await this.hit(
      `workspace:${caller.workspaceId}`,
      this.config.RATE_LIMIT_WORKSPACE_PER_MINUTE,
      'workspace',
    );
    return shared.retryAfterSeconds !== null || shared.remaining < own.remaining ? shared : own;
  }

  private async hit(
    key: string,
    limit: number,
    scope: RateLimitDecision['scope'],
  ): Promise<RateLimitDecision> {
    const record = await this.storage.increment(
      `${this.redisConfig.REDIS_PREFIX}:rate:${key}`,
      WINDOW_MS,
      limit,
      WINDOW_MS,
      'minute',
    );
    const resetSeconds = Math.max(1, record.isBlocked ? record.timeToBlockExpire : record.timeToExpire);
    return {
      limit,
      remaining: Math.max(0, limit - record.totalHits),
      resetSeconds,
      retryAfterSeconds: record.isBlocked ? resetSeconds : null,
      scope,
    };
  }
}
