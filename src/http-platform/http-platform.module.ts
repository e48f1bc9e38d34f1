import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { ThrottlerModule } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { ApiKeyRequestLogMiddleware } from '../auth/api-key-request-log.middleware';
import { AuthModule } from '../auth/auth.module';
import { RateLimitConfig } from '../common/http/rate-limit.config';
import { REDIS_CLIENT } from '../common/redis/redis.module';
import { JsonBodyMiddleware } from '../common/http/json-body.middleware';
import { JsonContentTypeMiddleware } from '../common/http/json-content-type.middleware';
import { RateLimitService } from '../common/http/rate-limit.service';
import { RequestContextMiddleware } from './request-context.middleware';
import { UpgradeRequestContext } from './upgrade-request-context';

/**
 * What every HTTP request passes through before a controller: caller, rate limit, content type, body; and the
 * API keys' request log, written when the response ends. WebSocket upgrades, which never reach Express, get the
 * same rate limit and request log through UpgradeRequestContext. It composes auth with common/http's pieces, so it sits
 * above both rather than inside common (which imports no feature module).
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
  providers: [RateLimitService, UpgradeRequestContext],
  exports: [UpgradeRequestContext],
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
