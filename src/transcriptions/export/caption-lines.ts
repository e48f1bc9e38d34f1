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
 * Lays out one cue on as few lines as fit, at most `maxLines` (1 to 3). Two lines are broken at the word
 * boundary that makes them closest in width (ties: the shorter top line); three lines at the boundaries
 * that make the widest line as narrow as possible. `prefix` (e.g. "Speaker 1: ") counts into the first
 * line's width; it may stand alone on the first line when nothing else fits. Returns null when the words
 * need more than `maxLines` lines. A single word that is wider than a line on its own is still laid out
 * (on its own line, or after the prefix when only one line is allowed) so that no word is ever lost: it is
 * the only way a line can exceed `maxLineWidth`.
 */
export function layoutCaptionLines(
  words: readonly LayoutWord[],
  prefix: string | null,
  maxLineWidth: number,
  maxLines = 2,
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
  const best = maxLines >= 2 ? bestBreak(words, prefix, maxLineWidth) : null;
  if (best !== null) {
    const firstLine = best === 0 ? prefixText.trimEnd() : prefixText + join(words, 0, best);
    return [firstLine, join(words, best, count)];
  }
  if (maxLines >= 3) {
    const lines = narrowestLayout(words, prefix, maxLineWidth, maxLines);
    if (lines !== null) {
      return lines;
    }
  }
  if (count === 1) {
    return prefix === null || maxLines === 1
      ? [prefixText + words[0].text]
      : [prefixText.trimEnd(), words[0].text];
  }
  return null;
}

/** Greedy fill at `limit`: the lines, or null when more than `maxLines` are needed. */
function fillLines(
  words: readonly LayoutWord[],
  prefix: string | null,
  limit: number,
  maxLines: number,
): string[] | null {
  const lines: string[] = [];
  let current: LayoutWord[] = [];
  let width = prefix === null ? 0 : textWidth(prefix);
  let lead = prefix ?? '';
  for (const word of words) {
    const added = current.length === 0 ? word.width : word.width + 1;
    if (width + added > limit) {
      if (current.length === 0 && lead === '') {
        return null;
      }
      lines.push(current.length === 0 ? lead.trimEnd() : lead + join(current, 0, current.length));
      current = [];
      lead = '';
      width = 0;
      if (word.width > limit) {
        return null;
      }
    }
    width += current.length === 0 ? word.width : word.width + 1;
    current.push(word);
  }
  lines.push(lead + join(current, 0, current.length));
  return lines.length <= maxLines ? lines : null;
}

/**
 * The layout in at most `maxLines` lines whose widest line is narrowest: the smallest limit at which a
 * greedy fill still fits (greedy fill uses the fewest lines for a given limit, so it is monotonic).
 */
function narrowestLayout(
  words: readonly LayoutWord[],
  prefix: string | null,
  maxLineWidth: number,
  maxLines: number,
): string[] | null {
  let best = fillLines(words, prefix, maxLineWidth, maxLines);
  if (best === null) {
    return null;
  }
  let low = 1;
  let high = maxLineWidth - 1;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    const lines = fillLines(words, prefix, middle, maxLines);
    if (lines === null) {
      low = middle + 1;
    } else {
      best = lines;
      high = middle - 1;
    }
  }
  return best;
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
