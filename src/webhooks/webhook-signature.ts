import { createHmac } from 'node:crypto';
import type { WebhookEventType } from './events/webhook-event-catalogue';

/** Header names of a delivery (the spec writes the product word as `Service`). */
export const WEBHOOK_HEADERS = {
  timestamp: 'X-Service-Timestamp',
  signature: 'X-Service-Signature',
  deliveryId: 'X-Service-Delivery-Id',
} as const;

/** Unix seconds as the decimal string used in both the header and the envelope. */
export function webhookTimestamp(now: Date = new Date()): string {
  return String(Math.floor(now.getTime() / 1000));
}

/**
 * The raw body of a delivery: the envelope `{event, timestamp, data}` serialised once. The exact string
 * returned here is what is signed and what goes on the wire.
 */
export function serializeWebhookEnvelope(
  event: WebhookEventType,
  timestamp: string,
  data: Record<string, unknown>,
): string {
  return JSON.stringify({ event, timestamp, data });
}

/** Lower-case hex HMAC-SHA256 of `{timestamp}.{rawBody}` keyed with the endpoint secret. */
export function signWebhookPayload(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}
