import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Job } from 'bull';
import { In, Repository } from 'typeorm';
import { AppConfig } from '../config/app-config';
import type { TranscriptionJobData } from '../queues/job-catalogue';
import { TranscriptionEventsService } from './transcription-events.service';
import { TranscriptionJobService } from './transcription-job.service';
import { TranscriptionQueue } from './transcription-queue.service';
import { Transcription } from './transcription.entity';

const RECONCILE_INTERVAL_MS = 30_000;

/**
 * The Bull processor of transcription jobs (roles `worker` and `all`). It only orchestrates: one call into
 * TranscriptionJobService per attempt. PostgreSQL is the source of truth: at start and periodically, every
 * queued/processing transcription without a live Bull job is enqueued again (Redis flushed, worker killed).
 */
@Injectable()
export class TranscriptionProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TranscriptionProcessor.name);
  private reconcileTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly queue: TranscriptionQueue,
    private readonly jobs: TranscriptionJobService,
    private readonly events: TranscriptionEventsService,
    @InjectRepository(Transcription) private readonly transcriptions: Repository<Transcription>,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.ROLE === 'api') return;
    await this.events.onCancel((transcriptionId) => this.jobs.cancel(transcriptionId));
    void this.queue.queue.process(this.config.WORKER_CONCURRENCY, (job: Job<TranscriptionJobData>) =>
      this.process(job),
    );
    await this.reconcile();
    this.reconcileTimer = setInterval(() => void this.reconcile(), RECONCILE_INTERVAL_MS);
    this.reconcileTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    if (this.config.ROLE !== 'api') await this.queue.queue.close().catch(() => undefined);
  }

  private async process(job: Job<TranscriptionJobData>): Promise<void> {
    const number = job.attemptsMade + 1;
    const outcome = await this.jobs.run(job.data.transcriptionId, {
      number,
      isLast: number >= (job.opts.attempts ?? 1),
    });
    // Throwing hands the job back to Bull, which retries it with backoff.
    if (outcome === 'retry') throw new Error(`transient engine failure on attempt ${number}; retrying`);
  }

  /** Re-enqueues open transcriptions that have no live job. */
  async reconcile(): Promise<number> {
    let requeued = 0;
    try {
      const open = await this.transcriptions.find({
        where: { status: In(['queued', 'processing']) },
        select: { id: true, model: true },
        order: { createdOn: 'ASC' },
        take: 1000,
      });
      for (const transcription of open) {
        if (await this.queue.isLive(transcription.id)) continue;
        await this.queue.enqueue(transcription.id, transcription.model);
        requeued++;
      }
      if (requeued > 0) this.logger.log(`Re-enqueued ${requeued} transcription(s) without a live job`);
    } catch (error) {
      this.logger.warn(`Reconciliation skipped: ${(error as Error).message}`);
    }
    return requeued;
  }
}
