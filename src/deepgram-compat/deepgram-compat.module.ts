import { Module } from '@nestjs/common';
import { TranscriptionsModule } from '../transcriptions/transcriptions.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { DeepgramCallbackBodyRegistration } from './deepgram-callback-body';
import { DeepgramErrorShapeRegistration } from './deepgram-error.filter';
import { DeepgramListenController } from './deepgram-listen.controller';
import { DeepgramListenService } from './deepgram-listen.service';

/** The Deepgram-compatible facade (docs/compatibility.md). */
@Module({
  imports: [TranscriptionsModule, WebhooksModule],
  controllers: [DeepgramListenController],
  providers: [DeepgramListenService, DeepgramErrorShapeRegistration, DeepgramCallbackBodyRegistration],
})
export class DeepgramCompatModule {}
