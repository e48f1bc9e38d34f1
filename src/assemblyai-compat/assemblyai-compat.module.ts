import { Module } from '@nestjs/common';
import { RetentionModule } from '../transcriptions/retention/retention.module';
import { TranscriptionsModule } from '../transcriptions/transcriptions.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AssemblyAiCallbackBodyRegistration } from './assemblyai-callback-body';
import { AssemblyAiController } from './assemblyai.controller';
import { AssemblyAiErrorShapeRegistration } from './assemblyai-error.filter';
import { AssemblyAiService } from './assemblyai.service';

/** The AssemblyAI-compatible facade (docs/compatibility.md). */
@Module({
  imports: [TranscriptionsModule, RetentionModule, WebhooksModule],
  controllers: [AssemblyAiController],
  providers: [AssemblyAiService, AssemblyAiErrorShapeRegistration, AssemblyAiCallbackBodyRegistration],
})
export class AssemblyAiCompatModule {}
