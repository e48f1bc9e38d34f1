import type { TranscriptWord } from '../../engine/engine.types';

/**
 * A word split into the punctuation around it and its core: "(Four," → "(", "Four", ",". The text passes
 * match on the lower-cased core and put the punctuation back around what they write.
 */
export interface WordParts {
  prefix: string;
  core: string;
  suffix: string;
}

const PARTS = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/su;

export function splitWord(word: string): WordParts {
  const match = PARTS.exec(word.trim());
  return match
    ? { prefix: match[1], core: match[2], suffix: match[3] }
    : { prefix: '', core: word, suffix: '' };
}

/** The lower-cased core of each word: what the passes match on. */
export function wordKeys(words: readonly { word: string }[]): string[] {
  return words.map((word) => splitWord(word.word).core.toLowerCase());
}

/**
 * Words `from`..`to` (inclusive) as one word reading `text`: the first word's leading and the last word's
 * trailing punctuation around it, timed from the first word's start to the last word's end, with the first
 * word's speaker and the lowest confidence among them (a merged word is as sure as its least sure part).
 */
export function mergeWords(
  words: readonly TranscriptWord[],
  from: number,
  to: number,
  text: string,
): TranscriptWord {
  const first = words[from];
  const last = words[to];
  const span = words.slice(from, to + 1);
  const confidences = span
    .map((word) => word.confidence)
    .filter((value): value is number => value !== undefined);
  const merged: TranscriptWord = {
    word: `${splitWord(first.word).prefix}${text}${splitWord(last.word).suffix}`,
    start: first.start,
    end: last.end,
    speaker: first.speaker,
  };
  if (confidences.length > 0) merged.confidence = Math.min(...confidences);
  return merged;
}

/** A replacement of words `from`..`to` (inclusive) by one word reading `text`. */
export interface WordReplacement {
  from: number;
  to: number;
  text: string;
}

/** Applies non-overlapping replacements (in any order); the other words are kept as they are. */
export function applyReplacements(
  words: readonly TranscriptWord[],
  replacements: readonly WordReplacement[],
): TranscriptWord[] {
  const sorted = [...replacements].sort((a, b) => a.from - b.from);
  const out: TranscriptWord[] = [];
  let next = 0;
  for (const replacement of sorted) {
    if (replacement.from < next) continue;
    out.push(...words.slice(next, replacement.from));
    out.push(mergeWords(words, replacement.from, replacement.to, replacement.text));
    next = replacement.to + 1;
  }
  out.push(...words.slice(next));
  return out;
}
