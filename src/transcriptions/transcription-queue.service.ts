import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import {
  MODEL_TIER_CATALOGUE,
  MODEL_TIERS_BY_QUEUE_PRIORITY,
  type ModelTier,
} from '../common/model-tier-catalogue';
import { TranscriptionsConfig } from './transcriptions.config';
import { TRANSCRIPTION_QUEUE, TranscriptionJobData } from '../queues/job-catalogue';

/** How long an upload waits for PostgreSQL and Redis to hand its job over before leaving it to the reconciler. */
const DISPATCH_WAIT_MS = 2_000;
/** Bull priority = tier priority × this + the job's place among its workspace's handed-over jobs (< this). */
const TIER_PRIORITY_STEP = 1000;

/** A job handed to the worker queue; `place` is how many of its workspace's jobs were handed over before it. */
export interface HandedOverJob {
  id: string;
  workspaceId: string;
  model: ModelTier;
  place?: number;
  /** The upload's request id, for the job's log lines (none for rows older than the column). */
  requestId?: string | null;
}

/**
 * The only place that adds transcription jobs, and the one place their options are set.
 *
 * Fair share: a workspace has at most MAX_ACTIVE_JOBS_PER_WORKSPACE open jobs in the worker queue (running or
 * next in line); its other jobs wait in PostgreSQL (`queued`, `dispatched_at` null) and are handed over, highest
 * tier first, then oldest, as earlier ones end. Within a tier, a workspace's first handed-over job goes ahead of
 * other workspaces' second and later ones (the place in the Bull priority), so one workspace's backlog never
 * sits in front of another workspace's only job. PostgreSQL stays the source of truth: the reconciler hands
 * over what a crash left waiting and re-adds handed-over jobs that have no live Bull job.
 */
@Injectable()
export class TranscriptionQueue {
  private readonly logger = new Logger(TranscriptionQueue.name);

  constructor(
    @InjectQueue(TRANSCRIPTION_QUEUE) readonly queue: Queue<TranscriptionJobData>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: TranscriptionsConfig,
  ) {}

  /**
   * Hands the workspace's waiting jobs to the workers while it has room under MAX_ACTIVE_JOBS_PER_WORKSPACE.
   * Called after an upload, when a job ends, after a deletion and by the reconciler; repeating it is harmless.
   */
  async dispatch(workspaceId: string): Promise<number> {
    const handedOver = await this.dataSource.transaction(async (tx) => {
      // One dispatcher per workspace at a time (any process): the count and the hand-over cannot interleave.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('transcription-dispatch:' || $1, 0))`, [
        workspaceId,
      ]);
      const [{ active }] = await tx.query<Array<{ active: number }>>(
        `SELECT count(*)::int AS active FROM transcriptions
          WHERE workspace_id = $1 AND status IN ('queued', 'processing') AND dispatched_at IS NOT NULL`,
        [workspaceId],
      );
      const room = this.config.MAX_ACTIVE_JOBS_PER_WORKSPACE - active;
      if (room <= 0) return [];
      const picked = await tx.query<
        [Array<{ id: string; model: ModelTier; created_on: Date; request_id: string | null }>, number]
      >(
        `UPDATE transcriptions SET dispatched_at = now()
          WHERE id IN (SELECT id FROM transcriptions
                        WHERE workspace_id = $1 AND status IN ('queued', 'processing') AND dispatched_at IS NULL AND live_until IS NULL
                        ORDER BY array_position($2::varchar[], model), created_on, id
                        LIMIT $3
                        FOR UPDATE)
          RETURNING id, model, created_on, request_id`,
        [workspaceId, MODEL_TIERS_BY_QUEUE_PRIORITY, room],
      );
      return sortByHandOverOrder(picked[0]).map((row, index): HandedOverJob => ({
        id: row.id,
        workspaceId,
        model: row.model,
        place: active + index,
        requestId: row.request_id,
      }));
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
    const handedOver = await this.dataSource.query<
      Array<{ id: string; workspace_id: string; model: ModelTier; place: number; request_id: string | null }>
    >(
      `SELECT id, workspace_id, model, request_id,
              (row_number() OVER (PARTITION BY workspace_id ORDER BY dispatched_at, id) - 1)::int AS place
         FROM transcriptions
        WHERE status IN ('queued', 'processing') AND dispatched_at IS NOT NULL
        ORDER BY created_on
        LIMIT 1000`,
    );
    for (const row of handedOver) {
      if (await this.isLive(row.id)) continue;
      await this.enqueue({
        id: row.id,
        workspaceId: row.workspace_id,
        model: row.model,
        place: row.place,
        requestId: row.request_id,
      });
      added++;
    }
    const waiting = await this.dataSource.query<Array<{ workspace_id: string }>>(
      `SELECT DISTINCT workspace_id FROM transcriptions
        WHERE status IN ('queued', 'processing') AND dispatched_at IS NULL AND live_until IS NULL`,
    );
    for (const { workspace_id } of waiting) added += await this.dispatch(workspace_id);
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
    await this.queue.add(
      { transcriptionId: job.id, workspaceId: job.workspaceId, requestId: job.requestId ?? null },
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

/** RETURNING has no order: the hand-over order again (tier priority, then age). */
function sortByHandOverOrder<T extends { id: string; model: ModelTier; created_on: Date }>(rows: T[]): T[] {
  const tierRank = (model: ModelTier): number => MODEL_TIERS_BY_QUEUE_PRIORITY.indexOf(model);
  return [...rows].sort(
    (a, b) =>
      tierRank(a.model) - tierRank(b.model) ||
      a.created_on.getTime() - b.created_on.getTime() ||
      a.id.localeCompare(b.id),
  );
}
