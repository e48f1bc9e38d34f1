import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { EngineModule } from '../engine/engine.module';
import { TranscriptionsModule } from '../transcriptions/transcriptions.module';
import { VocabulariesModule } from '../vocabularies/vocabularies.module';
import { RealtimeController } from './realtime.controller';
import { RealtimeGateway } from './realtime.gateway';
import { RealtimeSessionsService } from './realtime-sessions.service';

/** Live transcription over a WebSocket (OpenAI Realtime transcription sessions); each session is a transcription. */
@Module({
  imports: [AuthModule, BillingModule, EngineModule, TranscriptionsModule, VocabulariesModule],
  controllers: [RealtimeController],
  providers: [RealtimeSessionsService, RealtimeGateway],
})
export class RealtimeModule {}
