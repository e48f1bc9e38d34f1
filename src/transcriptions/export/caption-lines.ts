import { textWidth } from './timed-word';

/** The part of a word that line layout needs. */
export interface LayoutWord {
  text: string;
  width: number;
}

function widthOf(words: readonly LayoutWord[], from: number, to: number): number {
  let width = Math.max(0, to - from - 1);
  for (let index = from; index < to; index += 1) {
    width += words[index].width;
  }
  return width;
}

function join(words: readonly LayoutWord[], from: number, to: number): string {
  return words
    .slice(from, to)
    .map((word) => word.text)
    .join(' ');
}

/**
 * Lays out one cue on one line, or on two lines broken at the word boundary that makes them closest in
 * width (ties: the shorter top line). `prefix` (e.g. "Speaker 1: ") counts into the first line's width; it
 * may stand alone on the first line when nothing else fits. Returns null when the words need more than
 * two lines. A single word that is wider than a line on its own is still laid out (on its own line) so
 * that no word is ever lost.
 */
export function layoutCaptionLines(
  words: readonly LayoutWord[],
  prefix: string | null,
  maxLineWidth: number,
): string[] | null {
  const count = words.length;
  if (count === 0) {
    return null;
  }
  const prefixText = prefix ?? '';
  const prefixWidth = textWidth(prefixText);
  if (prefixWidth + widthOf(words, 0, count) <= maxLineWidth) {
    return [prefixText + join(words, 0, count)];
  }
  const best = bestBreak(words, prefix, maxLineWidth);
  if (best !== null) {
    const firstLine = best === 0 ? prefixText.trimEnd() : prefixText + join(words, 0, best);
    return [firstLine, join(words, best, count)];
  }
  if (count === 1) {
    return prefix === null ? [words[0].text] : [prefixText.trimEnd(), words[0].text];
  }
  return null;
}

/** Index of the first word of the second line, or null when no two-line split fits. */
function bestBreak(words: readonly LayoutWord[], prefix: string | null, maxLineWidth: number): number | null {
  const prefixWidth = prefix === null ? 0 : textWidth(prefix);
  const prefixAloneWidth = prefix === null ? 0 : textWidth(prefix.trimEnd());
  let best: number | null = null;
  let bestDifference = Number.POSITIVE_INFINITY;
  // Break 0 leaves the prefix alone on the first line; without a prefix that would be an empty line.
  for (let split = prefix === null ? 1 : 0; split < words.length; split += 1) {
    const top = split === 0 ? prefixAloneWidth : prefixWidth + widthOf(words, 0, split);
    const bottom = widthOf(words, split, words.length);
    if (top > maxLineWidth || bottom > maxLineWidth) {
      continue;
    }
    const difference = Math.abs(top - bottom);
    if (difference < bestDifference) {
      best = split;
      bestDifference = difference;
    }
  }
  return best;
}
