/**
 * Progress values that only go up, written at most once per interval and always ending with the latest one
 * (a trailing write), so what is stored lags what was reported by one interval at most.
 */
export class ProgressThrottle {
  private last: number;
  private lastWrittenAt = Number.NEGATIVE_INFINITY;
  private trailing: NodeJS.Timeout | null = null;

  constructor(
    startFrom: number,
    private readonly intervalMs: number,
    private readonly publish: (progress: number) => void,
    private readonly write: (progress: number) => void,
  ) {
    this.last = startFrom;
  }

  /** Whole percentages 0..99 (100 is set by completion); a value not above the last one is dropped. */
  report(percent: number): void {
    const rounded = Math.max(0, Math.min(99, Math.floor(percent)));
    if (rounded <= this.last) return;
    this.last = rounded;
    this.publish(rounded);
    if (this.trailing) return;
    const wait = this.lastWrittenAt + this.intervalMs - Date.now();
    if (wait <= 0) this.flush();
    else this.trailing = setTimeout(() => this.flush(), wait);
  }

  /** The job ended: no write after this. */
  stop(): void {
    if (this.trailing) clearTimeout(this.trailing);
    this.trailing = null;
  }

  private flush(): void {
    this.trailing = null;
    this.lastWrittenAt = Date.now();
    this.write(this.last);
  }
}
