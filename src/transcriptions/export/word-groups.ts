import type { TranscriptWord } from '../../engine/engine.types';
import { segmentParagraphs, type TranscriptParagraph } from './paragraph-segmenter';
import { endsSentence, normalizeWordText } from './timed-word';

/** A paragraph of the export with the words it is made of. */
export interface ParagraphWords {
  paragraph: TranscriptParagraph;
  words: TranscriptWord[];
}

/**
 * The export's paragraphs (speaker changes, long pauses, length: segmentParagraphs) with their words, for the
 * compatible APIs that answer paragraphs as word lists. The segmenter drops words that are blank after trimming
 * and joins the rest with one space: each paragraph is the next words whose texts, so joined, make its text.
 */
export function paragraphWords(words: readonly TranscriptWord[]): ParagraphWords[] {
  const spoken = words.filter((word) => normalizeWordText(word.word) !== '');
  let next = 0;
  return segmentParagraphs(spoken).map((paragraph) => {
    const own: TranscriptWord[] = [];
    let length = -1;
    while (next < spoken.length && length < paragraph.text.length) {
      length += normalizeWordText(spoken[next].word).length + 1;
      own.push(spoken[next]);
      next += 1;
    }
    return { paragraph, words: own };
  });
}

/** Runs of words each ending at a sentence end (the last run may end without one). */
export function sentenceWords(words: readonly TranscriptWord[]): TranscriptWord[][] {
  const sentences: TranscriptWord[][] = [];
  let current: TranscriptWord[] = [];
  for (const word of words) {
    current.push(word);
    if (endsSentence(word.word)) {
      sentences.push(current);
      current = [];
    }
  }
  if (current.length > 0) sentences.push(current);
  return sentences;
}
