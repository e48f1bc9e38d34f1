import type { TimeSpan } from '../engine.types';

export interface ChunkingOptions {
  /** Context added on both sides of each speech span. */
  paddingSeconds: number;
  maxChunkSeconds: number;
  /** A silence at least this long always starts a new chunk. */
  breakSilenceSeconds: number;
}

/** A recognition chunk and the speech spans (unpadded, file seconds) inside it. */
export interface PlannedChunk extends TimeSpan {
  speech: TimeSpan[];
}

/**
 * Merges speech spans into recognition chunks as the spans arrive, in time order. Chunks start and end inside
 * silences (never inside a speech span, unless one span alone is longer than the maximum, in which case it is
 * cut into equal parts). A chunk is handed out as soon as no later span can join it, so only a bounded
 * stretch of audio ever waits for its chunk to be complete.
 */
export class ChunkPlanner {
  /** The padded span that a later span may still overlap, with the speech inside it. */
  private pending: PlannedChunk | null = null;
  /** The chunk that a later piece may still join. */
  private open: PlannedChunk | null = null;
  private readonly ready: PlannedChunk[] = [];

  constructor(private readonly options: ChunkingOptions) {}

  /** Adds the next speech span (spans come sorted by start and do not overlap). */
  addSpeech(span: TimeSpan): void {
    const padded = {
      start: Math.max(0, span.start - this.options.paddingSeconds),
      end: span.end + this.options.paddingSeconds,
      speech: [{ ...span }],
    };
    if (padded.end <= padded.start) return;
    if (this.pending && padded.start <= this.pending.end) {
      this.pending.end = Math.max(this.pending.end, padded.end);
      this.pending.speech.push(...padded.speech);
      return;
    }
    if (this.pending) this.place(this.pending);
    this.pending = padded;
  }

  /**
   * Hands out the chunks that nothing can join any more, given that every span yet to come starts at or after
   * `earliestNextStart` seconds.
   */
  takeSettled(earliestNextStart: number): PlannedChunk[] {
    const nextPaddedStart = earliestNextStart - this.options.paddingSeconds;
    if (this.pending && nextPaddedStart > this.pending.end) {
      this.place(this.pending);
      this.pending = null;
    }
    if (this.open && !this.pending && nextPaddedStart - this.open.end >= this.options.breakSilenceSeconds) {
      this.ready.push(this.open);
      this.open = null;
    }
    return this.ready.splice(0);
  }

  /** The end of the file: every remaining chunk, clamped to the file's duration. */
  finish(durationSeconds: number): PlannedChunk[] {
    if (this.pending) this.place(this.pending);
    this.pending = null;
    if (this.open) this.ready.push(this.open);
    this.open = null;
    return this.ready
      .splice(0)
      .map((chunk) => ({ ...chunk, end: Math.min(durationSeconds, chunk.end) }))
      .filter((chunk) => chunk.end > chunk.start);
  }

  /** The earliest second of audio a chunk not yet handed out may need (null: none is waiting). */
  earliestNeeded(): number | null {
    const starts = [this.ready[0]?.start, this.open?.start, this.pending?.start].filter(
      (value): value is number => value !== undefined,
    );
    return starts.length > 0 ? Math.min(...starts) : null;
  }

  private place(span: PlannedChunk): void {
    for (const piece of splitEvenly(span, this.options.maxChunkSeconds)) {
      const current = this.open;
      if (
        current &&
        piece.start - current.end < this.options.breakSilenceSeconds &&
        piece.end - current.start <= this.options.maxChunkSeconds
      ) {
        current.end = piece.end;
        current.speech.push(...piece.speech);
        continue;
      }
      if (current) this.ready.push(current);
      this.open = piece;
    }
  }
}

/** The chunks of a whole file's speech spans at once (tools, tests and benchmarks). */
export function planChunks(
  speech: readonly TimeSpan[],
  durationSeconds: number,
  options: ChunkingOptions,
): TimeSpan[] {
  const planner = new ChunkPlanner(options);
  for (const span of [...speech].sort((a, b) => a.start - b.start)) planner.addSpeech(span);
  return planner.finish(durationSeconds).map(({ start, end }) => ({ start, end }));
}

/** Cuts a span longer than the maximum into equal parts; each part keeps the speech that overlaps it. */
function splitEvenly(span: PlannedChunk, maxSeconds: number): PlannedChunk[] {
  const length = span.end - span.start;
  if (length <= maxSeconds) return [span];
  const parts = Math.ceil(length / maxSeconds);
  const step = length / parts;
  return Array.from({ length: parts }, (_, index) => {
    const start = span.start + index * step;
    const end = index === parts - 1 ? span.end : span.start + (index + 1) * step;
    const speech = span.speech
      .filter((inner) => inner.end > start && inner.start < end)
      .map((inner) => ({ start: Math.max(start, inner.start), end: Math.min(end, inner.end) }));
    return { start, end, speech };
  });
}
