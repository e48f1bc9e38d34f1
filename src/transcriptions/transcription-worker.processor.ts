import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Job } from 'bull';
import { ShutdownCoordinator, sleep } from '../common/lifecycle/shutdown-coordinator';
import { LogContext } from '../common/logging/log-context';
import { EngineRunner } from '../engine/runner/engine-runner';
import { ProcessConfig } from '../common/lifecycle/process.config';
import { QueuesConfig } from '../queues/queues.config';
import { TRANSCRIPTION_QUEUE, type TranscriptionJobData } from '../queues/job-catalogue';
import { contextOf, inSpan, SpanKind } from '../common/tracing/trace-context';
import { TranscriptionEventsService } from './transcription-events.service';
import { TranscriptionAttemptRunner } from './transcription-attempt-runner.service';
import { TranscriptionDispatcher } from './transcription-dispatcher.service';

const RECONCILE_INTERVAL_MS = 30_000;

/**
 * The worker: the Bull processor of transcription jobs (roles `worker` and `all`). It only orchestrates: one
 * call into TranscriptionAttemptRunner per attempt, then TranscriptionDispatcher hands the workspace's next
 * waiting job over (fair share).
 * PostgreSQL is the source of truth: at start and periodically, handed-over open transcriptions without a live
 * Bull job are enqueued again (Redis flushed, worker killed) and waiting ones are dispatched.
 */
@Injectable()
export class TranscriptionWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TranscriptionWorker.name);
  private reconcileTimer: NodeJS.Timeout | null = null;
  /** Workspaces whose job this worker handed back while shutting down: dispatched again on the way out. */
  private readonly handedBack = new Set<string>();

  constructor(
    private readonly dispatcher: TranscriptionDispatcher,
    private readonly attempts: TranscriptionAttemptRunner,
    private readonly events: TranscriptionEventsService,
    private readonly config: ProcessConfig,
    private readonly queues: QueuesConfig,
    private readonly shutdown: ShutdownCoordinator,
    private readonly logContext: LogContext,
    private readonly engine: EngineRunner,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.ROLE === 'api') return;
    // One engine child per slot, started and loaded before its job arrives (no start-up on the job's path).
    this.engine.keepWarm(this.queues.WORKER_CONCURRENCY);
    await this.events.onCancel((transcriptionId) => this.attempts.cancel(transcriptionId));
    void this.dispatcher.queue.process(this.queues.WORKER_CONCURRENCY, (job: Job<TranscriptionJobData>) =>
      this.process(job),
    );
    await this.reconcile();
    this.reconcileTimer = setInterval(() => void this.reconcile(), RECONCILE_INTERVAL_MS);
    this.reconcileTimer.unref();
    this.shutdown.onDrain('transcription-worker', (deadline) => this.drain(deadline));
  }

  /**
   * Shutdown: take no new jobs, let running ones finish until the deadline, then stop the rest and hand them
   * back. Their Bull jobs end (removed), so the dispatch below hands them to another worker at once.
   */
  private async drain(deadline: number): Promise<void> {
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    this.engine.stopWarm();
    await this.dispatcher.queue.pause(true, true);
    const finished = this.dispatcher.queue.whenCurrentJobsFinished();
    const inTime = await Promise.race([
      finished.then(() => true),
      sleep(deadline - Date.now()).then(() => false),
    ]);
    if (!inTime) {
      const stopped = this.attempts.handBackAll();
      this.logger.warn(`Shutdown deadline passed: handing back ${stopped} running job(s)`);
      await finished;
    }
    for (const workspaceId of this.handedBack) {
      await this.dispatcher.dispatch(workspaceId).catch((error: Error) => {
        this.logger.warn(
          `Dispatch of handed-back jobs of ${workspaceId} left to the reconciler: ${error.message}`,
        );
      });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    this.engine.stopWarm();
    if (this.config.ROLE !== 'api') await this.dispatcher.queue.close().catch(() => undefined);
  }

  /**
   * In the upload's logging context (every line of the job, engine included, carries its request id) and in
   * its trace: the job's span is a child of the enqueueing's, whose context the job's data carries.
   */
  private process(job: Job<TranscriptionJobData>): Promise<void> {
    const { transcriptionId, workspaceId, requestId = null, traceparent = null } = job.data;
    return inSpan(
      `process ${TRANSCRIPTION_QUEUE}`,
      {
        parent: contextOf(traceparent),
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.destination.name': TRANSCRIPTION_QUEUE,
          'messaging.message.id': String(job.id),
          'transcription.id': transcriptionId,
          'transcription.attempt': job.attemptsMade + 1,
        },
      },
      () => this.logContext.run({ requestId, transcriptionId, workspaceId }, () => this.attempt(job)),
    );
  }

  private async attempt(job: Job<TranscriptionJobData>): Promise<void> {
    const number = job.attemptsMade + 1;
    this.logger.log(`Transcription ${job.data.transcriptionId} attempt ${number} started`);
    const outcome = await this.attempts.run(job.data.transcriptionId, {
      number,
      isLast: number >= (job.opts.attempts ?? 1),
    });
    this.logger.log(`Transcription ${job.data.transcriptionId} attempt ${number} ended: ${outcome}`);
    // Throwing hands the job back to Bull, which retries it with backoff; the job keeps its place meanwhile.
    if (outcome === 'retry') throw new Error(`transient engine failure on attempt ${number}; retrying`);
    // Its Bull job ends now; the transcription is dispatched again once the job is gone (drain()).
    if (outcome === 'handed-back') return void this.handedBack.add(job.data.workspaceId);
    // The job has ended: its workspace's next waiting job takes its place (the reconciler does it after a crash).
    await this.dispatcher.dispatch(job.data.workspaceId).catch((error: Error) => {
      this.logger.warn(`Dispatch after ${job.data.transcriptionId} left to the reconciler: ${error.message}`);
    });
  }

  /** Re-enqueues handed-over open transcriptions that have no live job and dispatches waiting ones. */
  async reconcile(): Promise<number> {
    let requeued = 0;
    try {
      requeued = await this.dispatcher.reconcile();
      if (requeued > 0) this.logger.log(`Enqueued ${requeued} transcription(s) without a live job`);
    } catch (error) {
      this.logger.warn(`Reconciliation skipped: ${(error as Error).message}`);
    }
    return requeued;
  }
}
