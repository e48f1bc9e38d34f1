/** Word error rate: word-level Levenshtein distance after normalisation. */

export interface WordErrorRate {
  /** Substitutions + deletions + insertions. */
  edits: number;
  referenceWords: number;
  /** edits / referenceWords; 0 for an empty reference and hypothesis, 1 per inserted word otherwise. */
  rate: number;
}

/** Lower-case, punctuation stripped (apostrophes inside words kept), numbers left as written. */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/\(\d+\)/g, ' ')
    .replace(/[^\p{L}\p{N}'\s]+/gu, ' ')
    .split(/\s+/)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word.length > 0);
}

export function editDistance(reference: readonly string[], hypothesis: readonly string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, index) => index);
  for (let row = 1; row <= reference.length; row++) {
    const current = [row];
    for (let column = 1; column <= hypothesis.length; column++) {
      const substitution = previous[column - 1] + (reference[row - 1] === hypothesis[column - 1] ? 0 : 1);
      current[column] = Math.min(previous[column] + 1, current[column - 1] + 1, substitution);
    }
    previous = current;
  }
  return previous[hypothesis.length];
}

export function wordErrorRate(reference: string, hypothesis: string): WordErrorRate {
  const referenceWords = normalizeWords(reference);
  const edits = editDistance(referenceWords, normalizeWords(hypothesis));
  const rate = referenceWords.length === 0 ? edits : edits / referenceWords.length;
  return { edits, referenceWords: referenceWords.length, rate };
}

/** Corpus WER: total edits over total reference words. */
export function overallWordErrorRate(results: readonly WordErrorRate[]): number {
  const edits = results.reduce((sum, result) => sum + result.edits, 0);
  const words = results.reduce((sum, result) => sum + result.referenceWords, 0);
  return words === 0 ? 0 : edits / words;
}
