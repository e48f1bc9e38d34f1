import type { ModelTier } from '../../common/model-tier-catalogue';

/**
 * The webhook events: their names, the `data` each one carries (SPEC "Events"; `openapi.yaml` `webhooks:`)
 * and what makes an occurrence happen only once. The outbox writer takes nothing else, so a payload that
 * drifts from the contract is a compile error in the module that emits it.
 */
export const WEBHOOK_EVENT_TYPES = [
  'transcription.completed',
  'transcription.failed',
  'balance.low',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export type TranscriptionCompletedData = {
  id: string;
  model: ModelTier;
  status: 'completed';
  /** Seconds of decoded audio. */
  duration: number;
  wordCount: number;
  speakerCount: number;
  /** Omitted when unknown. */
  language?: string;
  /** EUR. */
  cost: number;
  completedAt: string;
  /** The caller's metadata from the upload (`{}` when none). */
  metadata: Record<string, string>;
};

export type TranscriptionFailedData = {
  id: string;
  model: ModelTier;
  status: 'failed';
  errorMessage: string;
  failedAt: string;
  /** The caller's metadata from the upload (`{}` when none). */
  metadata: Record<string, string>;
};

export type BalanceLowData = {
  /** EUR, after the posting that crossed the threshold. */
  balance: number;
  threshold: number;
  currency: 'EUR';
};

export type WebhookEventData = {
  'transcription.completed': TranscriptionCompletedData;
  'transcription.failed': TranscriptionFailedData;
  'balance.low': BalanceLowData;
};

/** One occurrence of an event, with the cause that identifies it (the outbox `dedupe_key`). */
export type WebhookEventOccurrence =
  | { type: 'transcription.completed'; workspaceId: string; data: TranscriptionCompletedData }
  | { type: 'transcription.failed'; workspaceId: string; data: TranscriptionFailedData }
  /** `ledgerEntryId`: the posting that crossed the threshold; each crossing is its own event. */
  | { type: 'balance.low'; workspaceId: string; ledgerEntryId: string; data: BalanceLowData };

/** transcription.completed / .failed: once per transcription; balance.low: once per crossing. */
export function dedupeKeyOf(occurrence: WebhookEventOccurrence): string {
  switch (occurrence.type) {
    case 'transcription.completed':
    case 'transcription.failed':
      return `${occurrence.type}:${occurrence.data.id}`;
    case 'balance.low':
      return `balance.low:${occurrence.workspaceId}:${occurrence.ledgerEntryId}`;
  }
}
