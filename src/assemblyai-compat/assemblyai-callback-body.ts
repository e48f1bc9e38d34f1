import { Injectable, type OnModuleInit } from '@nestjs/common';
import { JobCallbacks, type JobEnd } from '../webhooks/job-callbacks.service';

/** What AssemblyAI POSTs to a transcript's `webhook_url` when it completes or errors (TranscriptReadyNotification). */
export function assemblyAiWebhookBody(
  transcriptId: string,
  end: JobEnd,
): { transcript_id: string; status: 'completed' | 'error' } {
  return { transcript_id: transcriptId, status: end === 'transcription.completed' ? 'completed' : 'error' };
}

/** Gives the webhook deliveries the AssemblyAI body of a transcript's webhook. */
@Injectable()
export class AssemblyAiCallbackBodyRegistration implements OnModuleInit {
  constructor(private readonly callbacks: JobCallbacks) {}

  onModuleInit(): void {
    this.callbacks.registerRenderer('assemblyai', async (job, end) => assemblyAiWebhookBody(job.id, end));
  }
}
