import { Transform } from 'class-transformer';
import { IsString, IsUrl, Matches, MinLength, ValidateIf } from 'class-validator';
import { toList } from '../../config/config-transformers';

/** `host:port` of one sentinel; an IPv6 address in brackets (`[::1]:26379`). */
const SENTINEL_ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[^\s,:[\]]+):\d{1,5}$/;

/**
 * The Redis every instance shares (queues, rate-limit counters, throttles, events). Property names are the
 * environment variable names. Every Redis client of a process connects through redisConnectionOptions
 * (redis-connection.ts), which reads this slice.
 */
export class RedisConfig {
  /**
   * `redis://` or `rediss://` (TLS), with the password (and ACL user) and the database. With REDIS_SENTINELS its
   * host and port are not used (the sentinels name the master); its scheme, credentials and database still are.
   */
  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false })
  REDIS_URL = 'redis://127.0.0.1:6379/0';

  /** Prefix of every Redis key (Bull queues, rate-limit counters, events), so instances can share a Redis. */
  @IsString()
  @MinLength(1)
  REDIS_PREFIX = 'stt';

  /**
   * Redis Sentinel: comma-separated `host:port` of the sentinels. Set, every client asks them for the current
   * master of REDIS_SENTINEL_MASTER and follows it when they fail over. Empty: REDIS_URL's host is the Redis.
   */
  @Transform(toList)
  @Matches(SENTINEL_ADDRESS, {
    each: true,
    message: 'REDIS_SENTINELS is a comma-separated list of host:port',
  })
  REDIS_SENTINELS: string[] = [];

  /** The master's name in the sentinels' configuration (`sentinel monitor <name> …`); required with sentinels. */
  @ValidateIf((config: RedisConfig) => config.REDIS_SENTINELS.length > 0)
  @IsString()
  @MinLength(1, { message: 'REDIS_SENTINEL_MASTER is required with REDIS_SENTINELS' })
  REDIS_SENTINEL_MASTER = '';

  /** The sentinels' own credentials (their `requirepass`/ACL user), when they have any. */
  @IsString()
  REDIS_SENTINEL_USERNAME = '';

  @IsString()
  REDIS_SENTINEL_PASSWORD = '';

  /**
   * A PEM file of the certificate authority that signed the Redis server's certificate, for `rediss://` with a
   * private CA. Empty: the system's trusted CAs (what managed Redis services need).
   */
  @IsString()
  REDIS_TLS_CA_FILE = '';
}
