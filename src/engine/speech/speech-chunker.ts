import type { TimeSpan } from '../engine.types';

export interface ChunkingOptions {
  /** Context added on both sides of each speech span. */
  paddingSeconds: number;
  maxChunkSeconds: number;
  /** A silence at least this long always starts a new chunk. */
  breakSilenceSeconds: number;
}

/**
 * Merges speech spans into recognition chunks. Chunks start and end inside silences (never inside a speech
 * span, unless one span alone is longer than the maximum, in which case it is cut into equal parts).
 */
export function planChunks(
  speech: readonly TimeSpan[],
  durationSeconds: number,
  options: ChunkingOptions,
): TimeSpan[] {
  const padded = mergeOverlapping(
    [...speech]
      .sort((a, b) => a.start - b.start)
      .map((span) => ({
        start: Math.max(0, span.start - options.paddingSeconds),
        end: Math.min(durationSeconds, span.end + options.paddingSeconds),
      }))
      .filter((span) => span.end > span.start),
  );
  const pieces = padded.flatMap((span) => splitEvenly(span, options.maxChunkSeconds));
  const chunks: TimeSpan[] = [];
  for (const piece of pieces) {
    const current = chunks.at(-1);
    if (
      current &&
      piece.start - current.end < options.breakSilenceSeconds &&
      piece.end - current.start <= options.maxChunkSeconds
    ) {
      current.end = piece.end;
    } else {
      chunks.push({ ...piece });
    }
  }
  return chunks;
}

function mergeOverlapping(spans: TimeSpan[]): TimeSpan[] {
  const merged: TimeSpan[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

function splitEvenly(span: TimeSpan, maxSeconds: number): TimeSpan[] {
  const length = span.end - span.start;
  if (length <= maxSeconds) return [span];
  const parts = Math.ceil(length / maxSeconds);
  const step = length / parts;
  return Array.from({ length: parts }, (_, index) => ({
    start: span.start + index * step,
    end: index === parts - 1 ? span.end : span.start + (index + 1) * step,
  }));
}
