import { createHmac } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from '../../clients/typescript/src/verify-webhook';
import { signWebhookPayload } from '../../src/webhooks/webhook-signature';

const SECRET = 'whsec_current_0123456789';
const NOW = 1_700_000_000;
const timestamp = String(NOW);
const rawBody = JSON.stringify({ event: 'balance.low', timestamp, data: { balance: 0.5 } });

/** Headers as the service's own signer produces them. */
function signed(body = rawBody, ts = timestamp, secret = SECRET): Record<string, string> {
  return { 'X-Service-Timestamp': ts, 'X-Service-Signature': signWebhookPayload(secret, ts, body) };
}

describe('verifyWebhook (typed client)', () => {
  it('accepts a delivery signed by the service and returns the envelope', () => {
    const event = verifyWebhook(SECRET, signed(), rawBody, { nowSeconds: NOW });
    expect(event).toEqual({ event: 'balance.low', timestamp, data: { balance: 0.5 } });
  });

  it('accepts a raw Buffer body and a fetch Headers bag', () => {
    const headers = new Headers(signed());
    expect(verifyWebhook(SECRET, headers, Buffer.from(rawBody), { nowSeconds: NOW }).event).toBe(
      'balance.low',
    );
  });

  it('rejects a tampered body', () => {
    const tampered = rawBody.replace('0.5', '50');
    expect(() => verifyWebhook(SECRET, signed(), tampered, { nowSeconds: NOW })).toThrow(
      'signature mismatch',
    );
  });

  it('rejects a timestamp older than the tolerance, and accepts it at the edge', () => {
    expect(() => verifyWebhook(SECRET, signed(), rawBody, { nowSeconds: NOW + 301 })).toThrow(
      WebhookVerificationError,
    );
    expect(verifyWebhook(SECRET, signed(), rawBody, { nowSeconds: NOW + 300 }).timestamp).toBe(timestamp);
  });

  it('rejects the wrong secret', () => {
    expect(() => verifyWebhook('whsec_other', signed(), rawBody, { nowSeconds: NOW })).toThrow(
      'signature mismatch',
    );
  });

  it('during a rotation, accepts the old secret through X-Service-Signature-Previous', () => {
    const headers = {
      ...signed(rawBody, timestamp, 'whsec_new'),
      'x-service-signature-previous': createHmac('sha256', SECRET)
        .update(`${timestamp}.${rawBody}`)
        .digest('hex'),
    };
    expect(verifyWebhook(SECRET, headers, rawBody, { nowSeconds: NOW }).event).toBe('balance.low');
    expect(verifyWebhook(['whsec_new', SECRET], headers, rawBody, { nowSeconds: NOW }).event).toBe(
      'balance.low',
    );
  });

  it('rejects missing headers and a body whose timestamp differs from the header', () => {
    expect(() => verifyWebhook(SECRET, {}, rawBody, { nowSeconds: NOW })).toThrow(
      'missing signature headers',
    );
    const other = JSON.stringify({ event: 'balance.low', timestamp: '1', data: {} });
    expect(() => verifyWebhook(SECRET, signed(other), other, { nowSeconds: NOW })).toThrow(
      'timestamp header and body differ',
    );
  });
});
