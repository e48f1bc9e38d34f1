import { createHmac } from 'node:crypto';
import type { WebhookEnvelopes, WebhookEventType } from './events/webhook-event-catalogue';

/** Header names of a delivery (the product word is spelt `Service` in them). */
export const WEBHOOK_HEADERS = {
  timestamp: 'X-Service-Timestamp',
  signature: 'X-Service-Signature',
  deliveryId: 'X-Service-Delivery-Id',
  /**
   * For 24 h after a secret rotation: the same HMAC keyed with the previous secret. `X-Service-Signature`
   * keeps its documented format (one hex HMAC) and is always keyed with the current secret.
   */
  previousSignature: 'X-Service-Signature-Previous',
} as const;

/** How long a rotated-out secret still signs deliveries. */
export const PREVIOUS_SECRET_VALIDITY_MS = 24 * 60 * 60 * 1000;

/** The ping of `POST /v1/webhooks/{id}/test`: delivered to that endpoint only, never subscribable. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Unix seconds as the decimal string used in both the header and the envelope. */
export function webhookTimestamp(now: Date = new Date()): string {
  return String(Math.floor(now.getTime() / 1000));
}

/**
 * The raw body of a delivery: the envelope `{event, timestamp, data}` serialised once. The exact string
 * returned here is what is signed and what goes on the wire.
 */
export function serializeWebhookEnvelope(
  event: WebhookEventType | typeof WEBHOOK_TEST_EVENT,
  timestamp: string,
  data: Record<string, unknown>,
): string {
  // The data was checked against its event's schema when the event was written (the catalogue's types).
  const head: Pick<WebhookEnvelopes[keyof WebhookEnvelopes], 'event' | 'timestamp'> = { event, timestamp };
  return JSON.stringify({ ...head, data });
}

/** Lower-case hex HMAC-SHA256 of `{timestamp}.{rawBody}` keyed with the endpoint secret. */
export function signWebhookPayload(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}
