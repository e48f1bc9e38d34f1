import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header names of a delivery (docs/webhooks.md; src/webhooks/webhook-signature.ts). */
export const WEBHOOK_SIGNATURE_HEADERS = {
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
  /** Sent for 24 h after a secret rotation: the same HMAC keyed with the previous secret. */
  previousSignature: 'x-service-signature-previous',
  deliveryId: 'x-service-delivery-id',
} as const;

export interface WebhookEvent {
  event: string;
  /** Unix seconds as a string, equal to `X-Service-Timestamp`. */
  timestamp: string;
  data: Record<string, unknown>;
}

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signed timestamp and now (default 300 s). */
  toleranceSeconds?: number;
  /** Unix seconds treated as now (tests). */
  nowSeconds?: number;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Header bags as Node (`IncomingHttpHeaders`), fetch (`Headers`) or a plain record give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies one delivery and returns its parsed envelope, or throws `WebhookVerificationError`.
 * The signature is the lower-case hex HMAC-SHA256 of `{X-Service-Timestamp}.{raw body bytes}` keyed with the
 * endpoint secret. `secret` may list several secrets (new first, then old) for a rotation; every secret is
 * tried against `X-Service-Signature` and, when present, `X-Service-Signature-Previous`. Pass the raw body
 * exactly as received: re-serialised JSON does not verify.
 */
export function verifyWebhook(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const timestamp = header(headers, WEBHOOK_SIGNATURE_HEADERS.timestamp);
  const given = [
    header(headers, WEBHOOK_SIGNATURE_HEADERS.signature),
    header(headers, WEBHOOK_SIGNATURE_HEADERS.previousSignature),
  ].filter((value): value is string => typeof value === 'string');
  if (timestamp === undefined || given.length === 0) {
    throw new WebhookVerificationError('missing signature headers');
  }
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError(`timestamp outside the ${toleranceSeconds} s tolerance`);
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const matches = secrets.some((key) => {
    const expected = createHmac('sha256', key).update(`${timestamp}.`).update(body).digest();
    // Every candidate is compared in constant time; a malformed header simply has the wrong length.
    return given.some((signature) => {
      const candidate = Buffer.from(signature, 'hex');
      return candidate.length === expected.length && timingSafeEqual(candidate, expected);
    });
  });
  if (!matches) throw new WebhookVerificationError('signature mismatch');
  const event = JSON.parse(body.toString('utf8')) as WebhookEvent;
  if (event.timestamp !== timestamp) {
    throw new WebhookVerificationError('timestamp header and body differ');
  }
  return event;
}
