import { Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';
import { OpenAiCompatConfig } from './openai-compat.config';
import { JobEndWait } from '../transcriptions/job-end-wait';
import type { Transcription } from '../transcriptions/transcription.entity';
import { TranscriptionsService } from '../transcriptions/transcriptions.service';
import {
  TranscriptionUploadService,
  type UploadRoute,
} from '../transcriptions/upload/transcription-upload.service';
import { jobError, OpenAiApiError, toOpenAiError } from './openai-error';
import { formatVerboseJson } from './openai-response.formatter';
import {
  type OpenAiTranscriptionRequest,
  readOpenAiTranscriptionRequest,
} from './openai-transcription-request';
import type { Schema } from '../openapi/contract-types';

export interface OpenAiAnswer {
  contentType: string;
  body: string | Buffer;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/**
 * POST /v1/audio/transcriptions: the normal upload (same billing, limits, tiers; the job is listed in
 * GET /v1/transcriptions), then a wait on the job's state events, then the transcript in OpenAI's formats.
 * A client that disconnects only stops the wait: the job goes on and is billed like any other. A retry (same
 * Idempotency-Key, or without a key an identical request while the first job is open) waits for that job
 * instead of starting another (docs/decisions.md, "OpenAI route: retries attach to the first job").
 */
@Injectable()
export class OpenAiTranscriptionService {
  private readonly logger = new Logger('OpenAiTranscriptions');

  constructor(
    private readonly uploads: TranscriptionUploadService,
    private readonly transcriptions: TranscriptionsService,
    private readonly wait: JobEndWait,
    private readonly config: OpenAiCompatConfig,
  ) {}

  /** The shared intake, as this route reads it: multipart only, its own fields, and retries attached. */
  private readonly route: UploadRoute<OpenAiTranscriptionRequest> = {
    name: 'POST /v1/audio/transcriptions',
    body: { kind: 'form', acceptsAudioUrl: false },
    keylessRepeat: 'attach-while-open',
    isRetry: (request) => Number(request.headers['x-stainless-retry-count']) > 0,
    readFields: (fields) => {
      const asked = readOpenAiTranscriptionRequest(fields);
      return { options: asked.options, asked };
    },
    checkDuration: (seconds) => this.checkDuration(seconds),
  };

  /** `closed` aborts when the client goes away; then null is returned and nothing is to be sent. */
  async transcribe(
    principal: Principal,
    request: Request,
    closed: AbortSignal,
  ): Promise<OpenAiAnswer | null> {
    const { transcriptionId: jobId, asked } = await this.uploads.admit(principal, request, this.route);
    try {
      const outcome = await this.wait.untilEnded(
        principal.workspaceId,
        jobId,
        closed,
        this.config.OPENAI_SYNC_WAIT_TIMEOUT_SECONDS,
      );
      if (outcome === 'disconnected') return null;
      if (outcome === 'shutdown') {
        throw jobError(
          503,
          `This server is shutting down and the transcription ${jobId} has not ended yet. It goes on: fetch it with GET /v1/transcriptions/${jobId}.`,
          'service_unavailable',
        );
      }
      if (outcome === 'timeout') {
        throw jobError(
          504,
          `The transcription ${jobId} is still running after ${this.config.OPENAI_SYNC_WAIT_TIMEOUT_SECONDS} s. It goes on: fetch it with GET /v1/transcriptions/${jobId}.`,
          'timeout',
        );
      }
      return await this.answer(await this.transcriptions.get(principal.workspaceId, jobId), asked);
    } catch (error) {
      throw this.afterJobCreated(error, jobId);
    }
  }

  /** Refused before the job exists, so nothing is charged. The duration is known: measured at upload when the container states none. */
  private checkDuration(seconds: number): void {
    const limit = this.config.OPENAI_SYNC_MAX_DURATION_SECONDS;
    if (seconds <= limit) return;
    throw new OpenAiApiError(
      400,
      `The audio lasts ${Math.ceil(seconds)} s; this endpoint answers synchronously for at most ${limit} s. Use the asynchronous API for longer files: POST /v1/transcriptions, then GET /v1/transcriptions/{id} or its events.`,
      'invalid_request_error',
      'audio_too_long',
      'file',
    );
  }

  private async answer(job: Transcription, asked: OpenAiTranscriptionRequest): Promise<OpenAiAnswer> {
    if (job.status === 'failed') {
      throw jobError(
        500,
        `The transcription ${job.id} failed: ${job.errorMessage ?? 'no reason recorded'}.`,
        'transcription_failed',
      );
    }
    const text = job.resultText ?? '';
    switch (asked.responseFormat) {
      case 'json':
        return {
          contentType: JSON_TYPE,
          body: JSON.stringify({ text } satisfies Schema<'OpenAiTranscription'>),
        };
      case 'text':
        return { contentType: TEXT_TYPE, body: `${text}\n` };
      case 'srt':
      case 'vtt': {
        const rendered = await this.transcriptions.export(job.workspaceId, job.id, asked.responseFormat);
        return { contentType: rendered.contentType, body: rendered.body };
      }
      case 'verbose_json': {
        const transcript = {
          text,
          language: job.language ?? job.detectedLanguage,
          duration: job.duration,
          words: job.resultJson?.words ?? [],
        };
        return { contentType: JSON_TYPE, body: JSON.stringify(formatVerboseJson(transcript, asked)) };
      }
    }
  }

  /**
   * Once the job exists, every error names it and tells the SDK not to retry: a retry would upload again
   * and, once the job has ended, start (and bill) a second job.
   */
  private afterJobCreated(error: unknown, jobId: string): OpenAiApiError {
    if (error instanceof OpenAiApiError) return error;
    const mapped = error instanceof ProblemException ? toOpenAiError(error) : null;
    if (!mapped)
      this.logger.error(`transcription ${jobId}: ${String(error)}`, (error as Error | undefined)?.stack);
    return jobError(
      mapped?.status ?? 500,
      `The transcription ${jobId} was created, but its answer could not be given (${mapped?.message ?? 'an unexpected error'}). Fetch it with GET /v1/transcriptions/${jobId}.`,
      mapped?.code ?? 'server_error',
      mapped?.type ?? 'server_error',
    );
  }
}
