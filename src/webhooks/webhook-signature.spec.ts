import { serializeWebhookEnvelope, signWebhookPayload, webhookTimestamp } from './webhook-signature';

describe('webhook signature', () => {
  // Vectors computed outside this code base: printf '%s' "$timestamp.$body" | openssl dgst -sha256 -hmac "$secret"
  it('matches a known vector (hex HMAC-SHA256 of "{timestamp}.{rawBody}")', () => {
    const body =
      '{"event":"balance.low","timestamp":"1700000000","data":{"balance":0.5,"threshold":1,"currency":"EUR"}}';
    expect(signWebhookPayload('whsec_test', '1700000000', body)).toBe(
      '7328274e2b9fdb97cae47fe73b41bd4d2f388b46b233f3f540b211a3471f84df',
    );
  });

  it('signs the UTF-8 bytes of non-ASCII bodies and secrets', () => {
    const body =
      '{"event":"transcription.failed","timestamp":"1700000000","data":{"errorMessage":"Grüße – ✓"}}';
    expect(signWebhookPayload('whsec_ünï', '1700000000', body)).toBe(
      '0f8ced42e506d5fd42e65797287c5d5f5ac9cae44e2129846d33cc94524a5bf2',
    );
  });

  it('changes with the timestamp, the body and the secret', () => {
    const base = signWebhookPayload('s', '1', '{}');
    expect(signWebhookPayload('s', '2', '{}')).not.toBe(base);
    expect(signWebhookPayload('s', '1', '{ }')).not.toBe(base);
    expect(signWebhookPayload('t', '1', '{}')).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('webhook envelope', () => {
  it('serialises {event, timestamp, data} in that order with the timestamp as a string', () => {
    const raw = serializeWebhookEnvelope('balance.low', '1700000000', {
      balance: 0.5,
      threshold: 1,
      currency: 'EUR',
    });
    expect(raw).toBe(
      '{"event":"balance.low","timestamp":"1700000000","data":{"balance":0.5,"threshold":1,"currency":"EUR"}}',
    );
    const parsed = JSON.parse(raw) as { timestamp: unknown };
    expect(typeof parsed.timestamp).toBe('string');
  });

  it('leaves out members that are undefined (unknown optional fields are omitted)', () => {
    const raw = serializeWebhookEnvelope('transcription.completed', '1', {
      id: 'x',
      status: 'completed',
      language: undefined,
    });
    expect(JSON.parse(raw)).toEqual({
      event: 'transcription.completed',
      timestamp: '1',
      data: { id: 'x', status: 'completed' },
    });
  });

  it('uses whole Unix seconds for the timestamp', () => {
    expect(webhookTimestamp(new Date('2023-11-14T22:13:20.999Z'))).toBe('1700000000');
  });
});
