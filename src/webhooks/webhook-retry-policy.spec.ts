import { deliveryJobId, attemptNumberOfJob } from './webhook-delivery-queue.service';
import { dueIn } from './webhook-delivery.service';
import {
  classifyAttempt,
  nextStep,
  retryDelayMs,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_TIMEOUT_MS,
} from './webhook-retry-policy';

describe('webhook retry classification', () => {
  it.each([200, 201, 204, 299])('%i delivers', (statusCode) => {
    expect(classifyAttempt({ statusCode })).toBe('delivered');
  });

  it.each([400, 401, 404, 410, 413, 422, 429, 499])('%i ends the delivery at once', (statusCode) => {
    expect(classifyAttempt({ statusCode })).toBe('permanent');
  });

  it.each([500, 502, 503, 504, 599, 301, 302, 304, 100])('%i is retried', (statusCode) => {
    expect(classifyAttempt({ statusCode })).toBe('retryable');
  });

  it('retries timeouts and connection errors but not SSRF refusals', () => {
    expect(classifyAttempt({ statusCode: null, error: 'timeout: no answer within 10000 ms' })).toBe(
      'retryable',
    );
    expect(classifyAttempt({ statusCode: null, error: 'connection error: ECONNREFUSED' })).toBe('retryable');
    expect(classifyAttempt({ statusCode: null, error: 'refused: private', refused: true })).toBe('permanent');
  });
});

describe('webhook backoff schedule', () => {
  it('is 3 attempts in total with a 10 s deadline', () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(3);
    expect(WEBHOOK_TIMEOUT_MS).toBe(10_000);
  });

  it('waits 5 s then 10 s (linear)', () => {
    expect(retryDelayMs(1)).toBe(5_000);
    expect(retryDelayMs(2)).toBe(10_000);
    expect(() => retryDelayMs(0)).toThrow(RangeError);
  });

  it('walks 5xx → wait 5 s → 5xx → wait 10 s → 5xx → failed', () => {
    expect(nextStep('retryable', 1)).toEqual({ status: 'pending', delayMs: 5_000 });
    expect(nextStep('retryable', 2)).toEqual({ status: 'pending', delayMs: 10_000 });
    expect(nextStep('retryable', 3)).toEqual({ status: 'failed' });
  });

  it('stops at once on a 4xx and on success', () => {
    expect(nextStep('permanent', 1)).toEqual({ status: 'failed' });
    expect(nextStep('delivered', 2)).toEqual({ status: 'delivered' });
  });

  it('times the next attempt from the end of the last one (reconciler)', () => {
    const at = '2024-01-01T00:00:00.000Z';
    const start = Date.parse(at);
    expect(dueIn([], start)).toBe(0);
    expect(dueIn([{ at, durationMs: 1_000, statusCode: 500, error: null }], start + 1_000)).toBe(5_000);
    expect(dueIn([{ at, durationMs: 1_000, statusCode: 500, error: null }], start + 4_000)).toBe(2_000);
    const two = [
      { at, durationMs: 10_000, statusCode: null, error: 'timeout' },
      { at: '2024-01-01T00:00:15.000Z', durationMs: 100, statusCode: 503, error: null },
    ];
    expect(dueIn(two, start + 15_100)).toBe(10_000);
    expect(dueIn(two, start + 60_000)).toBe(0);
  });
});

describe('webhook delivery job ids', () => {
  it('uses the delivery id for the first attempt and a per-attempt id for retries', () => {
    const id = '5b0d6f0e-6a4c-4d5e-9a36-0a1c2b3d4e5f';
    expect(deliveryJobId(id, 1)).toBe(id);
    expect(deliveryJobId(id, 2)).toBe(`${id}:attempt-2`);
    expect(attemptNumberOfJob(deliveryJobId(id, 1))).toBe(1);
    expect(attemptNumberOfJob(deliveryJobId(id, 3))).toBe(3);
  });
});
