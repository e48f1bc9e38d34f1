import { Module } from '@nestjs/common';
import { TranscriptionsModule } from '../transcriptions/transcriptions.module';
import { DeepgramErrorShapeRegistration } from './deepgram-error.filter';
import { DeepgramListenController } from './deepgram-listen.controller';
import { DeepgramListenService } from './deepgram-listen.service';

/** The Deepgram-compatible facade (docs/compatibility.md). */
@Module({
  imports: [TranscriptionsModule],
  controllers: [DeepgramListenController],
  providers: [DeepgramListenService, DeepgramErrorShapeRegistration],
})
export class DeepgramCompatModule {}
