import type { Schema } from '../../openapi/contract-types';

/**
 * The webhook events: their names, the `data` each one carries (`openapi.yaml` `webhooks:`, typed from it)
 * and what makes an occurrence happen only once. The outbox writer takes nothing else, so a payload that
 * drifts from the contract is a compile error in the module that emits it.
 */
export const WEBHOOK_EVENT_TYPES = [
  'transcription.completed',
  'transcription.failed',
  'balance.low',
] as const satisfies readonly Schema<'WebhookEventName'>[];
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Each delivery's body, `{event, timestamp, data}`, per event: openapi.yaml's `webhooks:` schemas. */
export type WebhookEnvelopes = {
  'transcription.completed': Schema<'TranscriptionCompletedEvent'>;
  'transcription.failed': Schema<'TranscriptionFailedEvent'>;
  'balance.low': Schema<'BalanceLowEvent'>;
  'webhook.test': Schema<'WebhookTestEvent'>;
};

type Assert<Condition extends true> = Condition;
/** Fails to compile when the contract's WebhookEventName names an event this catalogue does not list. */
type _EveryContractEventListed = Assert<
  [Exclude<Schema<'WebhookEventName'>, WebhookEventType>] extends [never] ? true : false
>;

/** The `data` of an event's envelope as the contract states it. */
type ContractData<Envelope extends keyof WebhookEnvelopes> = WebhookEnvelopes[Envelope]['data'];

/**
 * The contract leaves most fields optional so receivers tolerate their absence; the service always sends
 * them, except `language`, omitted when unknown.
 */
export type TranscriptionCompletedData = Required<Omit<ContractData<'transcription.completed'>, 'language'>> &
  Pick<ContractData<'transcription.completed'>, 'language'>;

export type TranscriptionFailedData = Required<ContractData<'transcription.failed'>>;

export type BalanceLowData = ContractData<'balance.low'>;

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
