/** Speaker turns a client can rebuild from the API's words: one turn per word, gaps left as no speech. */
import type { Turn } from './der';

export interface LabelledWord {
  start: number;
  end: number;
  speaker: string | null;
}

/** Every word with a positive length becomes a turn of its speaker (or of `relabel`, for a one-speaker baseline). */
export function wordTurns(words: readonly LabelledWord[], relabel?: string): Turn[] {
  return words
    .filter((word) => word.end > word.start)
    .map((word) => ({ start: word.start, end: word.end, speaker: relabel ?? word.speaker ?? 'UNLABELLED' }));
}
