import type { TranscriptWord } from '../../engine/engine.types';
import { toMilliseconds } from './timestamp';

/** A transcript word cleaned up for layout: one-line text, integer millisecond times, display width. */
export interface TimedWord {
  text: string;
  startMs: number;
  /** Never before startMs. */
  endMs: number;
  speaker: string | null;
  /** User-perceived characters (grapheme clusters), so an emoji or "é" counts as one. */
  width: number;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/u;

export function textWidth(text: string): number {
  // Fast path: captions are mostly ASCII, and the segmenter measures every candidate line.
  if (PRINTABLE_ASCII.test(text)) {
    return text.length;
  }
  let count = 0;
  for (const _segment of graphemes.segment(text)) {
    count += 1;
  }
  return count;
}

/** Collapses inner whitespace (a word must never carry a line break into a caption). */
export function normalizeWordText(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

// Closing quotes and brackets may follow the mark: `"Really?"` and `(done.)` end sentences too.
const SENTENCE_END = /[.?!…。？！][\p{Pf}\p{Pe}"']*$/u;
const CLAUSE_END = /[,;:，、；：–—][\p{Pf}\p{Pe}"']*$/u;

export function endsSentence(text: string): boolean {
  return SENTENCE_END.test(text);
}

export function endsClause(text: string): boolean {
  return CLAUSE_END.test(text);
}

/**
 * Keeps the engine's word order (it is the reading order) and drops words that are empty after trimming,
 * since they would only produce stray spaces.
 */
export function toTimedWords(words: readonly TranscriptWord[]): TimedWord[] {
  const timed: TimedWord[] = [];
  for (const word of words) {
    const text = normalizeWordText(typeof word.word === 'string' ? word.word : '');
    if (text === '') {
      continue;
    }
    const startMs = toMilliseconds(word.start);
    const endMs = Math.max(startMs, toMilliseconds(word.end));
    timed.push({ text, startMs, endMs, speaker: word.speaker ?? null, width: textWidth(text) });
  }
  return timed;
}
