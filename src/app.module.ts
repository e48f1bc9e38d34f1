import { DynamicModule, Module } from '@nestjs/common';
import { AccountModule } from './account/account.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { SessionModule } from './auth/session/session.module';
import { BillingModule } from './billing/billing.module';
import { HttpPlatformModule } from './http-platform/http-platform.module';
import { LifecycleModule } from './common/lifecycle/lifecycle.module';
import { LoggingModule } from './common/logging/logging.module';
import { RouteErrorShapesModule } from './common/problem/route-error-shapes';
import { RedisModule } from './common/redis/redis.module';
import { Configuration } from './config/configuration';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { QueuesModule } from './queues/queues.module';
import { StorageModule } from './storage/storage.module';
import { RetentionModule } from './transcriptions/retention/retention.module';
import { TranscriptionsModule } from './transcriptions/transcriptions.module';
import { LanguagesModule } from './languages/languages.module';
import { TiersModule } from './tiers/tiers.module';
import { MembersModule } from './auth/members/members.module';
import { MetricsModule } from './metrics/metrics.module';
import { OpenAiCompatModule } from './openai-compat/openai-compat.module';
import { DeepgramCompatModule } from './deepgram-compat/deepgram-compat.module';
import { AssemblyAiCompatModule } from './assemblyai-compat/assemblyai-compat.module';
import { RealtimeModule } from './realtime/realtime.module';
import { VocabulariesModule } from './vocabularies/vocabularies.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The application for one process role: `api` serves HTTP, `worker` runs the queue processors, `all` both.
 * Any number of each can run against the same PostgreSQL and Redis.
 */
@Module({})
export class AppModule {
  static register(configuration: Configuration): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.register(configuration),
        LifecycleModule,
        LoggingModule,
        RouteErrorShapesModule,
        RedisModule,
        DatabaseModule,
        QueuesModule,
        StorageModule,
        MetricsModule,
        HttpPlatformModule,
        AuditModule,
        AuthModule,
        MembersModule,
        HealthModule,
        LanguagesModule,
        TiersModule,
        AccountModule,
        BillingModule,
        VocabulariesModule,
        SessionModule,
        WebhooksModule,
        TranscriptionsModule,
        RetentionModule,
        OpenAiCompatModule,
        DeepgramCompatModule,
        AssemblyAiCompatModule,
        RealtimeModule,
      ],
    };
  }
}
