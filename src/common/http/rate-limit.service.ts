import { Injectable, Logger } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerStorage } from '@nestjs/throttler';
import type { AuthOutcome } from '../principal/principal';
import { ProblemException } from '../problem/problem.exception';
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
  private readonly logger = new Logger('RateLimit');

  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly config: RateLimitConfig,
    private readonly redisConfig: RedisConfig,
  ) {}

  /**
   * Charges a request (an HTTP request or a WebSocket upgrade) to its caller. Fails open: while Redis is
   * unreachable requests are served unmetered (and logged), not refused; the answer is then null.
   */
  async meter(caller: RateLimitCaller): Promise<RateLimitDecision | null> {
    try {
      return await this.consume(caller);
    } catch (error) {
      this.logger.warn(`Rate limiting skipped, store unavailable: ${(error as Error).message}`);
      return null;
    }
  }

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

/** Who a request is counted against: its key or user (and workspace) when authenticated, else its address. */
export function rateLimitCaller(auth: AuthOutcome, clientAddress: string | undefined): RateLimitCaller {
  return auth.kind === 'authenticated'
    ? { key: auth.principal.rateLimitKey, authenticated: true, workspaceId: auth.principal.workspaceId }
    : { key: `ip:${clientAddress ?? 'unknown'}`, authenticated: false };
}

/** The x-ratelimit-* headers every metered answer carries. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(decision.resetSeconds),
  };
}

/** The 429 for a request over its limit (with Retry-After), or null. */
export function rateLimitRefusal(decision: RateLimitDecision): ProblemException | null {
  if (decision.retryAfterSeconds === null) return null;
  return new ProblemException(
    'rate-limit',
    decision.scope === 'workspace'
      ? `Rate limit of ${decision.limit} requests per minute for the workspace (all its API keys and users together) exceeded; retry in ${decision.retryAfterSeconds} s.`
      : `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSeconds} s.`,
    {},
    { 'Retry-After': String(decision.retryAfterSeconds) },
  );
}
