import { IsString, IsUrl, MinLength } from 'class-validator';

/**
 * The Redis every instance shares (queues, rate-limit counters, events). Property names are the environment
 * variable names.
 */
export class RedisConfig {
  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false })
  REDIS_URL = 'redis://127.0.0.1:6379/0';

  /** Prefix of every Redis key (Bull queues, rate-limit counters, events), so instances can share a Redis. */
  @IsString()
  @MinLength(1)
  REDIS_PREFIX = 'stt';
}
