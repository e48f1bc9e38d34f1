export interface TimedWord {
  word: string;
  start: number;
  end: number;
  speaker?: number | string | null;
  confidence?: number;
}

/**
 * The index of the word being spoken at `time` (seconds): the last word that started at or before `time`, as
 * long as `time` is before its end or before the next word starts (so the highlight does not flicker off in
 * the short pauses between words). -1 before the first word. Binary search: called on every timeupdate.
 */
export function activeWordIndex(words: readonly TimedWord[], time: number): number {
  let low = 0;
  let high = words.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (words[middle].start <= time) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

export interface Paragraph {
  speaker: number | string | null;
  /** Index of the paragraph's first word in the transcript's word list. */
  firstIndex: number;
  words: TimedWord[];
}

/** Consecutive words of one speaker form a paragraph; a pause over `gapSeconds` starts a new one too. */
export function paragraphs(words: readonly TimedWord[], gapSeconds = 2): Paragraph[] {
  const result: Paragraph[] = [];
  words.forEach((word, index) => {
    const speaker = word.speaker ?? null;
    const last = result[result.length - 1];
    const previous = last?.words[last.words.length - 1];
    if (last && last.speaker === speaker && previous && word.start - previous.end <= gapSeconds) {
      last.words.push(word);
    } else {
      result.push({ speaker, firstIndex: index, words: [word] });
    }
  });
  return result;
}
