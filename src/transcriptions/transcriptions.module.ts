import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { BillingGate } from '../billing/billing-gate.service';
import { BillingModule } from '../billing/billing.module';
import { TranscriptionBilling } from '../billing/transcription-billing.service';
import { WorkspaceJobHistory } from '../billing/workspace-job-history';
import { EngineModule } from '../engine/engine.module';
import { VocabulariesModule } from '../vocabularies/vocabularies.module';
import { WebhookEventsModule } from '../webhooks/events/webhook-events.module';
import { IdempotencyRecord } from './idempotency-record.entity';
import { IdempotencyService } from './idempotency.service';
import { UploadIdempotency } from './idempotent-upload';
import { TierLanguagePolicy } from './tier-language.policy';
import { TranscriptionEventsService } from './transcription-events.service';
import { TranscriptionAttemptRunner } from './transcription-attempt-runner.service';
import { TranscriptionDispatcher } from './transcription-dispatcher.service';
import { TranscriptionLifecycle } from './transcription-lifecycle.service';
import { TranscriptionWorker } from './transcription-worker.processor';
import { Transcription } from './transcription.entity';
import { TranscriptionRepository } from './transcription.repository';
import { AudioRedactionService } from './audio/audio-redaction.service';
import { TranscriptionAudioService } from './audio/transcription-audio.service';
import { TranscriptionsController } from './transcriptions.controller';
import { TranscriptionsService } from './transcriptions.service';
import { TranscriptionCreator } from './upload/transcription-creator';
import { TranscriptionUploadService } from './upload/transcription-upload.service';
import { JobEndWait } from './job-end-wait';

@Module({
  imports: [
    TypeOrmModule.forFeature([Transcription, IdempotencyRecord]),
    AuditModule,
    WebhookEventsModule,
    BillingModule,
    EngineModule,
    VocabulariesModule,
  ],
  controllers: [TranscriptionsController],
  providers: [
    JobEndWait,
    TranscriptionRepository,
    // The money lifecycle of a job lives in billing; its gate reads the workspace's jobs through a port
    // that this module answers, so billing imports nothing from here.
    { provide: WorkspaceJobHistory, useExisting: TranscriptionRepository },
    BillingGate,
    TranscriptionBilling,
    TranscriptionsService,
    TierLanguagePolicy,
    TranscriptionUploadService,
    TranscriptionCreator,
    IdempotencyService,
    UploadIdempotency,
    TranscriptionDispatcher,
    TranscriptionEventsService,
    TranscriptionLifecycle,
    TranscriptionAttemptRunner,
    TranscriptionWorker,
    TranscriptionAudioService,
    AudioRedactionService,
  ],
  exports: [
    TranscriptionsService,
    TranscriptionWorker,
    // The OpenAI- and Deepgram-compatible routes run the same intake and wait for the job's end.
    TranscriptionUploadService,
    TranscriptionEventsService,
    JobEndWait,
    // Realtime sessions are transcriptions: created, billed and finished through the same rules.
    TranscriptionRepository,
    TranscriptionBilling,
    TranscriptionLifecycle,
    TierLanguagePolicy,
  ],
})
export class TranscriptionsModule {}
