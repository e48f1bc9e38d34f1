export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface JobProgress {
  status: JobStatus;
  progress: number;
}

export type ProgressAction =
  { type: 'known'; id: string; progress: JobProgress } | { type: 'frame'; id: string; data: string };

export type ProgressState = Readonly<Record<string, JobProgress>>;

const STATUSES: readonly JobStatus[] = ['queued', 'processing', 'completed', 'failed'];
const RANK: Record<JobStatus, number> = { queued: 0, processing: 1, completed: 2, failed: 2 };

export const isTerminal = (status: JobStatus): boolean => status === 'completed' || status === 'failed';

function parseFrame(data: string): JobProgress | null {
  try {
    const value: unknown = JSON.parse(data);
    if (typeof value !== 'object' || value === null) return null;
    const { status, progress } = value as Record<string, unknown>;
    if (!STATUSES.includes(status as JobStatus) || typeof progress !== 'number') return null;
    return { status: status as JobStatus, progress: Math.max(0, Math.min(100, Math.round(progress))) };
  } catch {
    return null;
  }
}

/**
 * Live status per job from the list's snapshot and the SSE frames. Never goes backwards: a stale list answer or a
 * replayed frame after a reconnect must not turn a completed job back into processing or lower its progress.
 * Malformed frames are ignored.
 */
export function progressReducer(state: ProgressState, action: ProgressAction): ProgressState {
  const next = action.type === 'known' ? action.progress : parseFrame(action.data);
  if (next === null) return state;
  const current = state[action.id];
  if (current) {
    if (isTerminal(current.status)) return state;
    if (RANK[next.status] < RANK[current.status]) return state;
    if (next.status === current.status && next.progress <= current.progress) return state;
  }
  return { ...state, [action.id]: next };
}
