const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Bounded polling: resolves with the first truthy value of `probe`, or fails naming `what` at the deadline.
 * The one way tests wait for a condition; the deadline only bounds a hang, it is never the thing asserted.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  deadlineMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await pause(intervalMs);
  }
  const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
  throw new Error(`${what} did not happen within ${deadlineMs} ms${reason}`);
}
