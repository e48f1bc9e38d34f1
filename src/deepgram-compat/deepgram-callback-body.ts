import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ProblemException } from '../common/problem/problem.exception';
import type { Transcription } from '../transcriptions/transcription.entity';
import { TranscriptionsService } from '../transcriptions/transcriptions.service';
import { JobCallbacks, type JobEnd } from '../webhooks/job-callbacks.service';
import type { DeepgramErrorBody } from './deepgram-error';
import { formatListenResponse, type ListenAnswerOptions } from './deepgram-response.formatter';
import type { Schema } from '../openapi/contract-types';

/**
 * What a Deepgram `callback` receives when its job ends (docs/compatibility.md, "Per-job callbacks"): the
 * `ListenV1Response` the synchronous answer would have been, from the options the request asked (kept on the
 * job's callback); for a failed job Deepgram's error body, as the synchronous answer's 500 would have said it
 * (Deepgram documents no failure body for callbacks: docs/decisions.md).
 */
export function deepgramCallbackBody(
  job: Transcription,
  end: JobEnd,
): Schema<'DeepgramListenResponse'> | DeepgramErrorBody {
  if (end === 'transcription.failed') {
    return {
      err_code: 'TRANSCRIPTION_FAILED',
      err_msg: `The transcription ${job.id} failed: ${job.errorMessage ?? 'no reason recorded'}.`,
      request_id: job.id,
    };
  }
  return formatListenResponse(
    { ...job, words: job.resultJson?.words ?? [] },
    job.callback?.answer as unknown as ListenAnswerOptions,
    job.callback?.audioSha256 ?? '',
  );
}

/** Gives the webhook deliveries the Deepgram body of a job's callback. */
@Injectable()
export class DeepgramCallbackBodyRegistration implements OnModuleInit {
  constructor(
    private readonly callbacks: JobCallbacks,
    private readonly transcriptions: TranscriptionsService,
  ) {}

  onModuleInit(): void {
    this.callbacks.registerRenderer('deepgram', async ({ id, workspaceId }, end) => {
      try {
        return { ...deepgramCallbackBody(await this.transcriptions.get(workspaceId, id), end) };
      } catch (error) {
        // Deleted meanwhile: nothing to send (its delivery goes with it).
        if (error instanceof ProblemException && error.status === 404) return null;
        throw error;
      }
    });
  }
}
