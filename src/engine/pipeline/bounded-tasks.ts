/**
 * Runs async tasks with at most `limit` in flight. run() waits for a free slot, so a producer that awaits it
 * is held back (backpressure). The first failure is thrown from the next run() or drain(); later tasks are
 * not started once one failed.
 */
export class BoundedTasks {
  private readonly inFlight = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be at least 1, got ${limit}`);
  }

  async run(task: () => Promise<void>): Promise<void> {
    while (this.inFlight.size >= this.limit && !this.failure) await Promise.race(this.inFlight);
    this.throwIfFailed();
    const running: Promise<void> = task()
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
  }

  /** Waits for every task; throws the first failure. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
    this.throwIfFailed();
  }

  /** Throws the first failure, if a task has failed. */
  throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
