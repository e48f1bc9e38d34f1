import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { RedisConfig } from './redis.config';
import { redisConnectionOptions } from './redis-connection';

export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
export const InjectRedis = (): ParameterDecorator => Inject(REDIS_CLIENT);

/**
 * Commands fail fast while Redis is down or hangs (rate limiting then fails open, state publishing is
 * skipped, sign-in answers 503) instead of waiting without bound.
 */
export function createRedisClient(config: RedisConfig): Redis {
  return new Redis({
    ...redisConnectionOptions(config),
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
    commandTimeout: 2000,
  });
}

@Global()
@Module({
  providers: [{ provide: REDIS_CLIENT, inject: [RedisConfig], useFactory: createRedisClient }],
  exports: [REDIS_CLIENT],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@InjectRedis() private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
