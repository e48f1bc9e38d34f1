import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { MODEL_TIER_CATALOGUE, type ModelTier } from '../common/model-tier-catalogue';
import { contextOf, currentTraceparent, inSpan, SpanKind } from '../common/tracing/trace-context';
import { TranscriptionsConfig } from './transcriptions.config';
import { TRANSCRIPTION_QUEUE, TranscriptionJobData } from '../queues/job-catalogue';
import { TranscriptionRepository } from './transcription.repository';

/** How long an upload waits for PostgreSQL and Redis to hand its job over before leaving it to the reconciler. */
const DISPATCH_WAIT_MS = 2_000;
/** Bull priority = tier priority × this + the job's place among its workspace's handed-over jobs (< this). */
const TIER_PRIORITY_STEP = 1000;
/** Handed-over jobs the reconciler checks per pass, oldest first. */
const RECONCILE_BATCH = 1000;

/** A job handed to the worker queue; `place` is how many of its workspace's jobs were handed over before it. */
export interface HandedOverJob {
  id: string;
  workspaceId: string;
  model: ModelTier;
  place?: number;
  /** The upload's request id, for the job's log lines (none for rows older than the column). */
  requestId?: string | null;
  /** The upload's trace context, which the job's spans continue (none while tracing is off). */
  traceparent?: string | null;
}

/**
 * Hands transcription jobs from PostgreSQL to the worker queue (Bull): the only place that adds them, and the
 * one place their options are set. It decides who runs next; TranscriptionWorker runs them.
 *
 * Fair share: a workspace has at most MAX_ACTIVE_JOBS_PER_WORKSPACE open jobs in the worker queue (running or
 * next in line); its other jobs wait in PostgreSQL (`queued`, `dispatched_at` null) and are handed over, highest
 * tier first, then oldest, as earlier ones end. Within a tier, a workspace's first handed-over job goes ahead of
 * other workspaces' second and later ones (the place in the Bull priority), so one workspace's backlog never
 * sits in front of another workspace's only job. PostgreSQL stays the source of truth: the reconciler hands
 * over what a crash left waiting and re-adds handed-over jobs that have no live Bull job.
 */
@Injectable()
export class TranscriptionDispatcher {
  private readonly logger = new Logger(TranscriptionDispatcher.name);

  constructor(
    @InjectQueue(TRANSCRIPTION_QUEUE) readonly queue: Queue<TranscriptionJobData>,
    private readonly transcriptions: TranscriptionRepository,
    private readonly config: TranscriptionsConfig,
  ) {}

  /**
   * Hands the workspace's waiting jobs to the workers while it has room under MAX_ACTIVE_JOBS_PER_WORKSPACE.
   * Called after an upload, when a job ends, after a deletion and by the reconciler; repeating it is harmless.
   */
  async dispatch(workspaceId: string): Promise<number> {
    const handedOver = await this.transcriptions.transaction(async (tx) => {
      await this.transcriptions.lockWorkspaceDispatch(tx, workspaceId);
      const active = await this.transcriptions.countHandedOver(tx, workspaceId);
      const room = this.config.MAX_ACTIVE_JOBS_PER_WORKSPACE - active;
      if (room <= 0) return [];
      return this.transcriptions.handOverWaiting(tx, workspaceId, room, active);
    });
    for (const job of handedOver) await this.enqueue(job);
    return handedOver.length;
  }

  /**
   * dispatch() without failing or holding up the caller (an upload): PostgreSQL is the source of truth and the
   * reconciler retries. Bull's client waits for minutes while Redis is unreachable, so the caller waits at most
   * DISPATCH_WAIT_MS; an add still pending then may land later, harmlessly (the job id is the transcription id).
   */
  async dispatchOrDefer(workspaceId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from Redis within ${DISPATCH_WAIT_MS} ms`)),
        DISPATCH_WAIT_MS,
      );
    });
    const dispatching = this.dispatch(workspaceId);
    dispatching.catch(() => undefined);
    try {
      await Promise.race([dispatching, gaveUp]);
    } catch (error) {
      this.logger.warn(
        `Dispatch for workspace ${workspaceId} deferred to the reconciler: ${(error as Error).message}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * What a crash or a Redis outage can leave behind: handed-over open jobs without a live Bull job are added
   * again, and workspaces with waiting jobs get a dispatch (a worker killed between a job's end and its
   * dispatch). Returns how many jobs were added.
   */
  async reconcile(): Promise<number> {
    let added = 0;
    const handedOver = await this.transcriptions.handedOver(RECONCILE_BATCH);
    for (const row of handedOver) {
      if (await this.isLive(row.id)) continue;
      await this.enqueue(row);
      added++;
    }
    for (const workspaceId of await this.transcriptions.workspacesWithWaitingJobs())
      added += await this.dispatch(workspaceId);
    return added;
  }

  async isLive(transcriptionId: string): Promise<boolean> {
    const job = await this.queue.getJob(transcriptionId);
    if (!job) return false;
    const state = await job.getState();
    return state !== 'completed' && state !== 'failed';
  }

  /**
   * A deleted transcription's job: removed if it has not started (a running one is stopped through the cancel
   * signal instead), and its place handed to the workspace's next waiting job.
   */
  async withdraw(workspaceId: string, transcriptionId: string): Promise<void> {
    const job = await this.queue.getJob(transcriptionId);
    if (job && (await job.getState()) !== 'active') await job.remove().catch(() => undefined);
    await this.dispatch(workspaceId);
  }

  /**
   * Adds the Bull job of a handed-over transcription. Idempotent: the job id is the transcription id, so a
   * second add of a live job is a no-op.
   */
  async enqueue(job: HandedOverJob): Promise<void> {
    // In the upload's trace whoever hands it over (the upload, another job's end, the reconciler).
    await inSpan(
      `send ${TRANSCRIPTION_QUEUE}`,
      {
        parent: contextOf(job.traceparent),
        kind: SpanKind.PRODUCER,
        attributes: { 'messaging.destination.name': TRANSCRIPTION_QUEUE, 'messaging.message.id': job.id },
      },
      () => this.add(job),
    );
  }

  private async add(job: HandedOverJob): Promise<void> {
    await this.queue.add(
      {
        transcriptionId: job.id,
        workspaceId: job.workspaceId,
        requestId: job.requestId ?? null,
        traceparent: currentTraceparent(),
      },
      {
        jobId: job.id,
        priority:
          MODEL_TIER_CATALOGUE[job.model].queuePriority * TIER_PRIORITY_STEP +
          Math.min(job.place ?? 0, TIER_PRIORITY_STEP - 1),
        attempts: this.config.JOB_ATTEMPTS,
        backoff: { type: 'exponential', delay: this.config.JOB_BACKOFF_MS },
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }
}
