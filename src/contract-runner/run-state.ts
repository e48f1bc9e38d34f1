import { randomUUID } from 'node:crypto';
import type { WebhookReceiver } from './webhook-receiver';

/** Ids and secrets the run created, chained from one operation into the next (as openapi.yaml's `links` say). */
export interface RunState {
  /** Marks everything this run creates (vocabulary names, upload file names), so a QA can find leftovers. */
  readonly tag: string;
  receiver?: WebhookReceiver;
  /** The receiver is the run's own loopback one (not --webhook-listen): given up when the deployment refuses it. */
  ownReceiver?: boolean;
  freeTranscriptionsRemaining?: number;
  vocabularyId?: string;
  webhook?: { id: string; secret: string };
  transcriptionId?: string;
  transcriptionStatus?: string;
  failedTranscriptionId?: string;
  deliveryId?: string;
  /** The dashboard session of --email/--password. */
  session?: { accessToken: string; refreshCookie: string; sessionCookie: string };
  /** The settings found at the start, restored at the end (full mode changes them). */
  originalSettings?: { lowBalanceThreshold: number; retention: Record<string, unknown> };
}

export function newRunState(): RunState {
  return { tag: `stt-contract-${randomUUID().slice(0, 8)}` };
}

/** A UUID no deployment has issued (random: found nowhere). */
export function unknownId(): string {
  return randomUUID();
}
