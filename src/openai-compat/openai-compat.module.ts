import { Module } from '@nestjs/common';
import { TranscriptionsModule } from '../transcriptions/transcriptions.module';
import { OpenAiCompatController } from './openai-compat.controller';
import { OpenAiErrorShapeRegistration } from './openai-error.filter';
import { OpenAiTranscriptionService } from './openai-transcription.service';

/** The OpenAI-compatible facade (docs/decisions.md, "OpenAI-compatible transcriptions"). */
@Module({
  imports: [TranscriptionsModule],
  controllers: [OpenAiCompatController],
  providers: [OpenAiTranscriptionService, OpenAiErrorShapeRegistration],
})
export class OpenAiCompatModule {}
