import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInt } from '../config/config-transformers';

/**
 * Transcription jobs: the fair share and retries of the queue, `audio_url` intake and event streams.
 * Property names are the environment variable names.
 */
export class TranscriptionsConfig {
  /**
   * Fair share of the workers: at most this many of one workspace's open jobs are handed to the worker queue at
   * once (running, or next in line for a worker); the rest wait in PostgreSQL (status `queued`) and are handed
   * over by tier priority, then age, as earlier ones finish. Deployment-wide (counted in PostgreSQL), so every
   * process must have the same value. Below the total worker slots (workers × WORKER_CONCURRENCY) it keeps slots
   * free for other workspaces; at any value another workspace's first job goes ahead of this one's waiting jobs.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MAX_ACTIVE_JOBS_PER_WORKSPACE = 2;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(20)
  JOB_ATTEMPTS = 3;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  JOB_BACKOFF_MS = 5000;

  /**
   * `audio_url` intake (POST /v1/transcriptions): one deadline for fetching the file (every redirect, the
   * headers and the whole body), and its size limit (at most the 500 MB upload limit; tests set it lower).
   * The address rules are the webhooks' (WEBHOOK_ALLOW_PRIVATE_TARGETS).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  URL_FETCH_TIMEOUT_MS = 300_000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500_000_000)
  URL_FETCH_MAX_BYTES = 500_000_000;

  /**
   * The `retry:` hint of transcription event streams: how long an EventSource waits before it reconnects
   * after a dropped stream. A client that saw a finished job's last frame is answered 204 and stops.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  SSE_RETRY_MS = 3000;
}
