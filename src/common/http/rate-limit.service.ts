import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerStorage } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';

const WINDOW_MS = 60_000;

export interface RateLimitDecision {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  /** Set when the call is over the limit: seconds to wait. */
  retryAfterSeconds: number | null;
}

/** Fixed one-minute windows in Redis (shared by every API process), through @nestjs/throttler's storage. */
@Injectable()
export class RateLimitService {
  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly config: AppConfig,
  ) {}

  async consume(bucket: { key: string; authenticated: boolean }): Promise<RateLimitDecision> {
    const limit = bucket.authenticated
      ? this.config.RATE_LIMIT_AUTHENTICATED_PER_MINUTE
      : this.config.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE;
    const record = await this.storage.increment(
      `${this.config.REDIS_PREFIX}:rate:${bucket.key}`,
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
    };
  }
}
