/** Delivery rules: 3 attempts in total, waiting 5 s then 10 s (linear); 10 s answer deadline. */
export const WEBHOOK_MAX_ATTEMPTS = 3;
export const WEBHOOK_RETRY_STEP_MS = 5_000;
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * What one attempt ended with: an HTTP status, or no answer at all (timeout, connection error), or a
 * target refused by the SSRF rules (`refused`, never retried).
 */
export type AttemptResult = { statusCode: number } | { statusCode: null; error: string; refused?: boolean };

export type AttemptVerdict = 'delivered' | 'retryable' | 'permanent';

/**
 * 2xx delivers; 4xx ends the delivery at once; 5xx, timeouts and connection errors are retried. Other
 * statuses (1xx answered as final, 3xx — redirects are never followed) fall under the general rule
 * that a non-2xx answer is retried (docs/webhooks.md).
 */
export function classifyAttempt(result: AttemptResult): AttemptVerdict {
  if (result.statusCode === null) return result.refused ? 'permanent' : 'retryable';
  if (result.statusCode >= 200 && result.statusCode < 300) return 'delivered';
  if (result.statusCode >= 400 && result.statusCode < 500) return 'permanent';
  return 'retryable';
}

/** Wait before attempt `failedAttempts + 1`, counted from the end of the last failed attempt: 5 s, 10 s. */
export function retryDelayMs(failedAttempts: number): number {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1) {
    throw new RangeError(`no retry delay before attempt ${failedAttempts + 1}`);
  }
  return failedAttempts * WEBHOOK_RETRY_STEP_MS;
}

/** The next step after a failed attempt number `attemptNumber` (1-based). */
export function nextStep(
  verdict: AttemptVerdict,
  attemptNumber: number,
): { status: 'delivered' | 'failed' } | { status: 'pending'; delayMs: number } {
  if (verdict === 'delivered') return { status: 'delivered' };
  if (verdict === 'permanent' || attemptNumber >= WEBHOOK_MAX_ATTEMPTS) return { status: 'failed' };
  return { status: 'pending', delayMs: retryDelayMs(attemptNumber) };
}
