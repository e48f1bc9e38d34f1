import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { EngineModule } from '../engine/engine.module';
import { HttpPlatformModule } from '../http-platform/http-platform.module';
import { TranscriptionsModule } from '../transcriptions/transcriptions.module';
import { VocabulariesModule } from '../vocabularies/vocabularies.module';
import { RealtimeClientSecret } from './client-secrets/realtime-client-secret.entity';
import { RealtimeClientSecretRepository } from './client-secrets/realtime-client-secret.repository';
import { RealtimeClientSecretsService } from './client-secrets/realtime-client-secrets.service';
import { AssemblyAiTokenController } from './assemblyai/assemblyai-token.controller';
import { RealtimeController } from './realtime.controller';
import { RealtimeCredentials } from './realtime-credentials';
import { RealtimeGateway } from './realtime.gateway';
import { RealtimeSessionsService } from './realtime-sessions.service';
import { RealtimeUpgradeAuthenticator } from './realtime-upgrade-auth';

/** Live transcription over a WebSocket (OpenAI Realtime transcription sessions); each session is a transcription. */
@Module({
  imports: [
    AuthModule,
    BillingModule,
    EngineModule,
    HttpPlatformModule,
    TranscriptionsModule,
    VocabulariesModule,
    TypeOrmModule.forFeature([RealtimeClientSecret]),
  ],
  controllers: [RealtimeController, AssemblyAiTokenController],
  providers: [
    RealtimeSessionsService,
    RealtimeCredentials,
    RealtimeClientSecretRepository,
    RealtimeClientSecretsService,
    RealtimeUpgradeAuthenticator,
    RealtimeGateway,
  ],
})
export class RealtimeModule {}
