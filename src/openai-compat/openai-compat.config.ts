import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInt } from '../config/config-transformers';

/** The synchronous OpenAI-compatible route. Property names are the environment variable names. */
export class OpenAiCompatConfig {
  /**
   * POST /v1/audio/transcriptions (OpenAI-compatible) answers synchronously only for audio up to this long;
   * longer files are refused before a job exists, pointing at the async POST /v1/transcriptions.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  OPENAI_SYNC_MAX_DURATION_SECONDS = 600;

  /**
   * How long POST /v1/audio/transcriptions waits for its job to end before answering 504 with the job's id
   * (the job goes on; the caller fetches it from /v1/transcriptions/{id}). Below the official OpenAI SDKs'
   * 600 s request timeout, so their callers get that answer instead of cutting the request off and retrying.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  OPENAI_SYNC_WAIT_TIMEOUT_SECONDS = 540;
}
