import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppConfig } from '../config/app-config';
import type { ModelTier } from '../engine/engine.types';
import { TRANSCRIPTION_QUEUE, TranscriptionJobData } from '../queues/job-catalogue';

/** Bull priority: lower runs first; premium tiers jump the standard queue. */
const PRIORITY: Record<ModelTier, number> = { premium_jade: 1, premium: 2, standard: 5 };

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

  /** Enqueue without failing the caller: PostgreSQL is the source of truth and the reconciler retries. */
  async enqueueOrDefer(transcriptionId: string, model: ModelTier): Promise<void> {
    try {
      await this.enqueue(transcriptionId, model);
    } catch (error) {
      this.logger.warn(
        `Enqueue of ${transcriptionId} deferred to the reconciler: ${(error as Error).message}`,
      );
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
