import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { ThrottlerModule } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { ApiKeyRequestLogMiddleware } from '../../auth/api-key-request-log.middleware';
import { AuthModule } from '../../auth/auth.module';
import { RateLimitConfig } from './rate-limit.config';
import { REDIS_CLIENT } from '../redis/redis.module';
import { JsonBodyMiddleware } from './json-body.middleware';
import { JsonContentTypeMiddleware } from './json-content-type.middleware';
import { RateLimitService } from './rate-limit.service';
import { RequestContextMiddleware } from './request-context.middleware';

/**
 * What every HTTP request passes through before a controller: caller, rate limit, content type, body; and the
 * API keys' request log, written when the response ends.
 */
@Module({
  imports: [
    AuthModule,
    ThrottlerModule.forRootAsync({
      inject: [RateLimitConfig, REDIS_CLIENT],
      useFactory: (config: RateLimitConfig, redis: Redis) => ({
        throttlers: [{ name: 'minute', ttl: 60_000, limit: config.RATE_LIMIT_AUTHENTICATED_PER_MINUTE }],
        storage: new ThrottlerStorageRedisService(redis),
      }),
    }),
  ],
  providers: [RateLimitService],
})
export class HttpPlatformModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(
        ApiKeyRequestLogMiddleware,
        RequestContextMiddleware,
        JsonContentTypeMiddleware,
        JsonBodyMiddleware,
      )
      .forRoutes('*path');
  }
}
