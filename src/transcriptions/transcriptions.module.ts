import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillingModule } from '../billing/billing.module';
import { EngineModule } from '../engine/engine.module';
import { VocabulariesModule } from '../vocabularies/vocabularies.module';
import { WebhookEventsModule } from '../webhooks/events/webhook-events.module';
import { IdempotencyRecord } from './idempotency-record.entity';
import { IdempotencyService } from './idempotency.service';
import { UploadIdempotency } from './idempotent-upload';
import { TierLanguagePolicy } from './tier-language.policy';
import { TranscriptionEventsService } from './transcription-events.service';
import { TranscriptionJobService } from './transcription-job.service';
import { TranscriptionQueue } from './transcription-queue.service';
import { Transcription } from './transcription.entity';
import { TranscriptionProcessor } from './transcription.processor';
import { AudioRedactionService } from './audio/audio-redaction.service';
import { TranscriptionAudioService } from './audio/transcription-audio.service';
import { TranscriptionsController } from './transcriptions.controller';
import { TranscriptionsService } from './transcriptions.service';
import { TranscriptionCreator } from './upload/transcription-creator';
import { TranscriptionUploadService } from './upload/transcription-upload.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([Transcription, IdempotencyRecord]),
    WebhookEventsModule,
    BillingModule,
    EngineModule,
    VocabulariesModule,
  ],
  controllers: [TranscriptionsController],
  providers: [
    TranscriptionsService,
    TierLanguagePolicy,
    TranscriptionUploadService,
    TranscriptionCreator,
    IdempotencyService,
    UploadIdempotency,
    TranscriptionQueue,
    TranscriptionEventsService,
    TranscriptionJobService,
    TranscriptionProcessor,
    TranscriptionAudioService,
    AudioRedactionService,
  ],
  exports: [
    TranscriptionsService,
    TranscriptionProcessor,
    // The OpenAI-compatible route runs the same intake and waits on the same job events.
    TranscriptionUploadService,
    TranscriptionEventsService,
    // Realtime sessions are transcriptions: created and finished through the same rules.
    TranscriptionJobService,
    TierLanguagePolicy,
  ],
})
export class TranscriptionsModule {}
