import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInt } from '../config/config-transformers';

/** The synchronous Deepgram-compatible route. Property names are the environment variable names. */
export class DeepgramCompatConfig {
  /**
   * POST /v1/listen answers synchronously only for audio up to this long; longer files are refused before a
   * job exists (400), pointing at the asynchronous POST /v1/transcriptions. As OPENAI_SYNC_MAX_DURATION_SECONDS.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  DEEPGRAM_SYNC_MAX_DURATION_SECONDS = 600;

  /**
   * How long POST /v1/listen waits for its job to end before answering 504 with the job's id (the job goes on;
   * the caller fetches it from /v1/transcriptions/{id}). The Deepgram SDK sets no request timeout of its own.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  DEEPGRAM_SYNC_WAIT_TIMEOUT_SECONDS = 540;
}
