import { Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';
import { JobEndWait } from '../transcriptions/job-end-wait';
import { TranscriptionsService } from '../transcriptions/transcriptions.service';
import {
  TranscriptionUploadService,
  type UploadRoute,
} from '../transcriptions/upload/transcription-upload.service';
import type { Schema } from '../openapi/contract-types';
import { DeepgramCompatConfig } from './deepgram-compat.config';
import { DeepgramApiError, toDeepgramError } from './deepgram-error';
import { JobCallbacks } from '../webhooks/job-callbacks.service';
import {
  type DeepgramListenRequest,
  readDeepgramCallback,
  readDeepgramListenRequest,
} from './deepgram-listen-request';
import { formatListenResponse } from './deepgram-response.formatter';

/**
 * POST /v1/listen: the normal upload (a raw audio body or `{"url"}`, the same billing, limits and tiers; the job
 * is listed in GET /v1/transcriptions), then the shared wait for the job's end, then the transcript in Deepgram's
 * shape. Retries attach to the first job as on the OpenAI route (docs/compatibility.md).
 */
@Injectable()
export class DeepgramListenService {
  private readonly logger = new Logger('DeepgramListen');

  constructor(
    private readonly uploads: TranscriptionUploadService,
    private readonly transcriptions: TranscriptionsService,
    private readonly wait: JobEndWait,
    private readonly config: DeepgramCompatConfig,
    private readonly callbacks: JobCallbacks,
  ) {}

  private readonly route: UploadRoute<DeepgramListenRequest> = {
    name: 'POST /v1/listen',
    body: { kind: 'raw' },
    keylessRepeat: 'attach-while-open',
    isRetry: () => false,
    readFields: (fields) => {
      const asked = readDeepgramListenRequest(fields);
      return { options: asked.options, asked };
    },
    checkDuration: (seconds) => this.checkDuration(seconds),
  };

  /**
   * With `callback`: nothing waits, so the synchronous duration limit does not apply (MAX_AUDIO_DURATION_HOURS,
   * checked by the intake, does) and an identical request is a new job, as Deepgram makes one per request. The
   * callback is checked (the webhook target policy) before the audio is fetched or the job exists.
   */
  private readonly callbackRoute: UploadRoute<DeepgramListenRequest> = {
    ...this.route,
    keylessRepeat: 'new-request',
    readFields: async (fields) => {
      const asked = readDeepgramListenRequest(fields);
      const callback = readDeepgramCallback(fields);
      if (!callback) throw ProblemException.field('callback', 'callback must be a URL');
      const { options, ...answer } = asked;
      const prepared = await this.callbacks.prepare({
        api: 'deepgram',
        url: callback.url,
        method: callback.method,
        authHeader: null,
        answer: { ...answer },
        fieldNames: { url: 'callback' },
      });
      return { options: { ...options, callback: prepared }, asked };
    },
    checkDuration: () => undefined,
  };

  /** With `callback`: the job is created and its id answered at once; its end is sent to the callback. */
  async accept(principal: Principal, request: Request): Promise<Schema<'DeepgramListenAccepted'>> {
    const admission = await this.uploads.admit(principal, request, this.callbackRoute);
    return { request_id: admission.transcriptionId };
  }

  /** Whether the request asks for a callback (Deepgram's query `callback`; an empty one is refused as no URL). */
  static asksForCallback(request: Request): boolean {
    return request.query.callback !== undefined;
  }

  /** `closed` aborts when the client goes away; then null is returned and nothing is to be sent. */
  async transcribe(
    principal: Principal,
    request: Request,
    closed: AbortSignal,
  ): Promise<Schema<'DeepgramListenResponse'> | null> {
    const admission = await this.uploads.admit(principal, request, this.route);
    const jobId = admission.transcriptionId;
    try {
      const outcome = await this.wait.untilEnded(
        principal.workspaceId,
        jobId,
        closed,
        this.config.DEEPGRAM_SYNC_WAIT_TIMEOUT_SECONDS,
      );
      if (outcome === 'disconnected') return null;
      if (outcome === 'shutdown') {
        throw new DeepgramApiError(
          503,
          'SERVICE_UNAVAILABLE',
          `This server is shutting down and the transcription ${jobId} has not ended yet. It goes on: fetch it with GET /v1/transcriptions/${jobId}.`,
          jobId,
          { 'Retry-After': '5' },
        );
      }
      if (outcome === 'timeout') {
        throw new DeepgramApiError(
          504,
          'GATEWAY_TIMEOUT',
          `The transcription ${jobId} is still running after ${this.config.DEEPGRAM_SYNC_WAIT_TIMEOUT_SECONDS} s. It goes on: fetch it with GET /v1/transcriptions/${jobId}.`,
          jobId,
        );
      }
      const job = await this.transcriptions.get(principal.workspaceId, jobId);
      if (job.status === 'failed') {
        throw new DeepgramApiError(
          500,
          'TRANSCRIPTION_FAILED',
          `The transcription ${jobId} failed: ${job.errorMessage ?? 'no reason recorded'}.`,
          jobId,
        );
      }
      return formatListenResponse(
        { ...job, words: job.resultJson?.words ?? [] },
        admission.asked,
        admission.audioSha256 ?? '',
      );
    } catch (error) {
      throw this.afterJobCreated(error, jobId);
    }
  }

  /** Refused before the job exists, so nothing is charged. */
  private checkDuration(seconds: number): void {
    const limit = this.config.DEEPGRAM_SYNC_MAX_DURATION_SECONDS;
    if (seconds <= limit) return;
    throw new DeepgramApiError(
      400,
      'Bad Request',
      `The audio lasts ${Math.ceil(seconds)} s; this endpoint answers synchronously for at most ${limit} s. Use the asynchronous API for longer files: POST /v1/transcriptions, then GET /v1/transcriptions/{id} or its events.`,
    );
  }

  /** Once the job exists, every error names it (`request_id` and the message). */
  private afterJobCreated(error: unknown, jobId: string): DeepgramApiError {
    if (error instanceof DeepgramApiError) return error;
    const mapped = error instanceof ProblemException ? toDeepgramError(error, jobId) : null;
    if (!mapped)
      this.logger.error(`transcription ${jobId}: ${String(error)}`, (error as Error | undefined)?.stack);
    return new DeepgramApiError(
      mapped?.status ?? 500,
      mapped?.errCode ?? 'INTERNAL_SERVER_ERROR',
      `The transcription ${jobId} was created, but its answer could not be given (${mapped?.message ?? 'an unexpected error'}). Fetch it with GET /v1/transcriptions/${jobId}.`,
      jobId,
      mapped?.headers ?? {},
    );
  }
}
