import type { TranscriptionStatus } from './transcription.entity';

/**
 * The life of a transcription, written once. Queries (TranscriptionRepository) and services ask this module
 * which states a change may start from; none of them lists statuses of its own.
 *
 * - A file job: `queued` at upload, `processing` when a worker starts an attempt (a retried attempt starts
 *   again from `processing`), then `completed` (charged) or `failed` (never billed). A worker that shuts down
 *   before the attempt ends hands the job back: `processing` → `queued`, uncharged.
 * - A realtime session: created `processing` with a lease (`live_until`) that its instance renews; it never
 *   goes to the worker queue. It ends `completed` or `failed`; one whose lease passed lost its instance and is
 *   failed by the realtime reconciler.
 * - Cancelling is deleting: a record is removed in any state; an open one has its waiting job withdrawn and
 *   its running attempt (or live session) told to stop.
 * - The worker reconciler does not change states: it hands open jobs back to Bull when Redis lost them.
 */

/** Open: the job still has work ahead (waiting, running, or a live session). */
export const OPEN_STATUSES = ['queued', 'processing'] as const satisfies readonly TranscriptionStatus[];
/** Terminal: nothing changes any more but retention and deletion. */
export const TERMINAL_STATUSES = ['completed', 'failed'] as const satisfies readonly TranscriptionStatus[];
/** A worker runs an attempt, or a realtime session is open: progress and session leases move only then. */
export const RUNNING_STATUS = 'processing' satisfies TranscriptionStatus;

export type OpenStatus = (typeof OPEN_STATUSES)[number];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

export function isOpen(status: TranscriptionStatus): status is OpenStatus {
  return (OPEN_STATUSES as readonly TranscriptionStatus[]).includes(status);
}

export function isTerminal(status: TranscriptionStatus): status is TerminalStatus {
  return (TERMINAL_STATUSES as readonly TranscriptionStatus[]).includes(status);
}

interface Transition {
  readonly from: readonly TranscriptionStatus[];
  readonly to: TranscriptionStatus;
}

/**
 * Every change of state, with the states it may start from. Each is applied by a guarded write (the `from`
 * set is in its WHERE clause, or checked on the row locked for it), so a repeated or late change (a
 * redelivered job, a record deleted meanwhile, a session the reconciler already failed) changes nothing.
 */
export const TRANSITIONS = {
  /** A worker takes the job: queued → processing (a retried attempt is processing already). */
  start: { from: OPEN_STATUSES, to: 'processing' },
  /** A shutting-down worker gives its running job back to the queue: processing → queued. */
  handBack: { from: [RUNNING_STATUS], to: 'queued' },
  /** The engine's result (or a realtime session's end) is stored and charged. */
  complete: { from: OPEN_STATUSES, to: 'completed' },
  /** The last attempt failed, billing refused the charge, or a realtime session ended without a result. */
  fail: { from: OPEN_STATUSES, to: 'failed' },
} as const satisfies Record<string, Transition>;

export type TranscriptionTransition = keyof typeof TRANSITIONS;

export function canTransition(status: TranscriptionStatus, transition: TranscriptionTransition): boolean {
  return (TRANSITIONS[transition].from as readonly TranscriptionStatus[]).includes(status);
}

/**
 * `column IN ('a', 'b')` for a set of statuses. Written as literals (the values are this module's constants,
 * never input) so PostgreSQL matches the partial index of open jobs (idx_transcriptions_open_by_workspace,
 * `WHERE status IN ('queued', 'processing')`) whatever the plan.
 */
export function statusIn(column: string, statuses: readonly TranscriptionStatus[]): string {
  return `${column} IN (${statuses.map((status) => `'${status}'`).join(', ')})`;
}
