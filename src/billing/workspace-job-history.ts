import type { EntityManager } from 'typeorm';
import type { ModelTier } from '../common/model-tier-catalogue';

/** An open job that will be charged at completion: what its estimate is made of. */
export interface OpenPaidJob {
  id: string;
  model: ModelTier;
  /** Stated by the upload probe; null when unknown (then it holds nothing back). */
  duration: number | null;
  channels: number | null;
  /** A realtime session's reservation: what it holds, in place of an estimate; null for a file job. */
  liveReservedMicro: number | null;
}

/** The audio of a workspace's failed (never billed) jobs over a period. */
export interface UnbilledAudio {
  seconds: number;
  /** When the oldest of them failed; null when there is none. */
  oldest: Date | null;
}

/**
 * What the billing gate must know of a workspace's jobs, and all it knows of them: billing does not import
 * the transcriptions module; the transcriptions module binds this port to its repository.
 */
export abstract class WorkspaceJobHistory {
  abstract openPaidJobs(tx: EntityManager, workspaceId: string): Promise<OpenPaidJob[]>;
  abstract failedAudioSince(tx: EntityManager, workspaceId: string, since: Date): Promise<UnbilledAudio>;
}

/** A job as billing sees it at creation, completion, failure and deletion. */
export interface BilledJob {
  id: string;
  workspaceId: string;
  model: ModelTier;
  usesFreeTranscription: boolean;
  channels: number | null;
  /** A completed job keeps the free transcription it used; an unfinished one gives it back. */
  status: string;
}

/** A realtime session as billing sees it: a job with what it reserved against the balance. */
export interface BilledLiveSession extends BilledJob {
  liveReservedMicro: number | null;
}
