import Bull from 'bull';
import type { RedisOptions } from 'ioredis';
import { TRANSCRIPTION_QUEUE, WEBHOOK_DELIVERY_QUEUE } from '../../src/queues/job-catalogue';
import { eventually } from './eventually';

/** Runs one SQL query on this run's database (a pg Client's or a TypeORM DataSource's `query`, wrapped). */
export type QueryRows = <T extends Record<string, unknown>>(sql: string, values: unknown[]) => Promise<T[]>;

/** Everything that could still make a workspace's webhook traffic grow, as found by `openWork`. */
export interface OpenWork {
  /** Transcriptions still queued or processing in PostgreSQL. */
  openTranscriptions: string[];
  /** Bull transcription jobs of the workspace not yet ended (waiting, delayed, active: a stalled one too). */
  transcriptionJobs: string[];
  /** Outbox events the dispatcher has not yet turned into deliveries. */
  undispatchedEvents: string[];
  /** Deliveries whose next attempt may still come (the reconciler re-enqueues them). */
  pendingDeliveries: string[];
  /** Bull delivery jobs (any attempt) of the workspace's deliveries not yet ended. */
  deliveryJobs: string[];
}

const OPEN_JOB_STATES: Bull.JobStatus[] = ['waiting', 'paused', 'delayed', 'active'];

/**
 * Read-only view of the two Bull queues of one instance prefix (never processes a job). A job that ended is
 * gone (removeOnComplete/removeOnFail), so a job listed here can still run and send something.
 */
export class QueueInspector {
  private queues: { transcriptions: Bull.Queue; deliveries: Bull.Queue } | null = null;

  /** Connects on first use, so a spec that never asks opens no Redis connection. */
  constructor(
    private readonly redis: string | RedisOptions,
    private readonly instancePrefix: string,
  ) {}

  private open(): { transcriptions: Bull.Queue; deliveries: Bull.Queue } {
    const options = { prefix: `${this.instancePrefix}:bull` };
    const queue = (name: string) =>
      typeof this.redis === 'string'
        ? new Bull(name, this.redis, options)
        : new Bull(name, { ...options, redis: this.redis });
    this.queues ??= {
      transcriptions: queue(TRANSCRIPTION_QUEUE),
      deliveries: queue(WEBHOOK_DELIVERY_QUEUE),
    };
    return this.queues;
  }

  async openTranscriptionJobs(workspaceId: string): Promise<string[]> {
    const jobs = await this.open().transcriptions.getJobs(OPEN_JOB_STATES);
    return jobs
      .filter((job) => job && (job.data as { workspaceId?: string }).workspaceId === workspaceId)
      .map((job) => String(job.id));
  }

  async openDeliveryJobs(deliveryIds: readonly string[]): Promise<string[]> {
    const wanted = new Set(deliveryIds);
    const jobs = await this.open().deliveries.getJobs(OPEN_JOB_STATES);
    return jobs
      .filter((job) => job && wanted.has((job.data as { deliveryId: string }).deliveryId))
      .map((job) => String(job.id));
  }

  /** The delivery jobs waiting for their time now, each with the delay it was scheduled with. */
  async delayedDeliveryJobs(): Promise<Array<{ id: string; delayMs: number }>> {
    const jobs = await this.open().deliveries.getDelayed();
    return jobs.filter((job) => job).map((job) => ({ id: String(job.id), delayMs: job.opts.delay ?? 0 }));
  }

  async close(): Promise<void> {
    const queues = this.queues;
    this.queues = null;
    if (queues) await Promise.all([queues.transcriptions.close(), queues.deliveries.close()]);
  }
}

/**
 * What is still open for a workspace, checked upstream first: transcriptions, their jobs, the outbox, the
 * deliveries, their jobs. Work only moves downstream (a job writes an outbox event in its final transaction,
 * the dispatcher turns events into deliveries, a delivery job adds its own retry before it ends), so when
 * every step reads empty in this order nothing is left that could make another webhook request, and nothing
 * can be moving between two steps unseen.
 */
export async function openWork(
  query: QueryRows,
  queues: QueueInspector,
  workspaceId: string,
): Promise<OpenWork> {
  const openTranscriptions = (
    await query<{ id: string }>(
      `SELECT id FROM transcriptions WHERE workspace_id = $1 AND status IN ('queued', 'processing')`,
      [workspaceId],
    )
  ).map((row) => row.id);
  const transcriptionJobs = await queues.openTranscriptionJobs(workspaceId);
  const undispatchedEvents = (
    await query<{ id: string }>(
      'SELECT id FROM outbox_events WHERE workspace_id = $1 AND dispatched_on IS NULL',
      [workspaceId],
    )
  ).map((row) => row.id);
  const deliveries = await query<{ id: string; status: string }>(
    `SELECT d.id, d.status FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
      WHERE e.workspace_id = $1`,
    [workspaceId],
  );
  const pendingDeliveries = deliveries.filter((row) => row.status === 'pending').map((row) => row.id);
  const deliveryJobs = await queues.openDeliveryJobs(deliveries.map((row) => row.id));
  return { openTranscriptions, transcriptionJobs, undispatchedEvents, pendingDeliveries, deliveryJobs };
}

export const nothingOpen = (work: OpenWork): boolean => Object.values(work).every((ids) => ids.length === 0);

/**
 * Waits until nothing is open for the workspace (see `openWork`): from then on no further webhook request
 * of it can come, so "exactly once" can be asserted on what the receiver holds. Fails with what stayed open.
 */
export async function waitUntilSettled(
  query: QueryRows,
  queues: QueueInspector,
  workspaceId: string,
  deadlineMs: number,
): Promise<void> {
  let last: OpenWork | null = null;
  try {
    await eventually(
      'the workspace settling',
      async () => nothingOpen((last = await openWork(query, queues, workspaceId))),
      deadlineMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; still open: ${JSON.stringify(last)}`);
  }
}

/**
 * Resolves when the job `jobId` ends on `queue` — the queue instance that processes it, in this process (a
 * TestApp's worker) — with how it ended. Call it before the job is added, so its end cannot be missed.
 */
export function whenJobEnds(queue: Bull.Queue, jobId: string): Promise<'completed' | 'failed'> {
  return new Promise((resolve) => {
    const onCompleted = (job: Bull.Job): void => end(job, 'completed');
    const onFailed = (job: Bull.Job): void => end(job, 'failed');
    const end = (job: Bull.Job, outcome: 'completed' | 'failed'): void => {
      if (String(job.id) !== jobId) return;
      queue.off('completed', onCompleted);
      queue.off('failed', onFailed);
      resolve(outcome);
    };
    queue.on('completed', onCompleted);
    queue.on('failed', onFailed);
  });
}

/**
 * Watches the delayed delivery jobs until stopped and notes each one's scheduled delay by job id
 * (`<delivery id>:attempt-<n>`): the wait the service asked for, independent of how late a loaded machine
 * then ran the attempt. A retry waits at least 5 s, so polling every 100 ms sees each one.
 */
export function watchScheduledRetries(queues: QueueInspector): {
  delays: Map<string, number>;
  stop: () => Promise<void>;
} {
  const delays = new Map<string, number>();
  let running = true;
  const watching = (async () => {
    while (running) {
      for (const job of await queues.delayedDeliveryJobs()) delays.set(job.id, job.delayMs);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    delays,
    stop: async () => {
      running = false;
      await watching;
    },
  };
}
