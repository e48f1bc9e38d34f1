import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppConfig } from '../config/app-config';
import type { ModelTier } from '../engine/engine.types';
import { TRANSCRIPTION_QUEUE, TranscriptionJobData } from '../queues/job-catalogue';

/** Bull priority: lower runs first; premium tiers jump the standard queue. */
const PRIORITY: Record<ModelTier, number> = { premium_jade: 1, premium: 2, standard: 5 };
/** How long an upload waits for Redis to accept its job before leaving it to the reconciler. */
const ENQUEUE_WAIT_MS = 2_000;

/** The only place that adds transcription jobs, and the one place their options are set. */
@Injectable()
export class TranscriptionQueue {
  private readonly logger = new Logger(TranscriptionQueue.name);

  constructor(
    @InjectQueue(TRANSCRIPTION_QUEUE) readonly queue: Queue<TranscriptionJobData>,
    private readonly config: AppConfig,
  ) {}

  /** Idempotent: the job id is the transcription id, so a second add of a live job is a no-op. */
  async enqueue(transcriptionId: string, model: ModelTier): Promise<void> {
    await this.queue.add(
      { transcriptionId },
      {
        jobId: transcriptionId,
        priority: PRIORITY[model],
        attempts: this.config.JOB_ATTEMPTS,
        backoff: { type: 'exponential', delay: this.config.JOB_BACKOFF_MS },
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }

  /**
   * Enqueue without failing or holding up the caller: PostgreSQL is the source of truth and the reconciler
   * retries. Bull's client waits for minutes while Redis is unreachable, so the caller waits at most
   * ENQUEUE_WAIT_MS; an add still pending then may land later, harmlessly (the job id is the transcription id).
   */
  async enqueueOrDefer(transcriptionId: string, model: ModelTier): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from Redis within ${ENQUEUE_WAIT_MS} ms`)),
        ENQUEUE_WAIT_MS,
      );
    });
    const adding = this.enqueue(transcriptionId, model);
    adding.catch(() => undefined);
    try {
      await Promise.race([adding, gaveUp]);
    } catch (error) {
      this.logger.warn(
        `Enqueue of ${transcriptionId} deferred to the reconciler: ${(error as Error).message}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  async isLive(transcriptionId: string): Promise<boolean> {
    const job = await this.queue.getJob(transcriptionId);
    if (!job) return false;
    const state = await job.getState();
    return state !== 'completed' && state !== 'failed';
  }

  /** Removes a job that has not started; a running one is stopped through the cancel signal instead. */
  async removeIfWaiting(transcriptionId: string): Promise<void> {
    const job = await this.queue.getJob(transcriptionId);
    if (job && (await job.getState()) !== 'active') await job.remove().catch(() => undefined);
  }
}
