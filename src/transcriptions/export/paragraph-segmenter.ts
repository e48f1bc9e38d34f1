import type { TranscriptWord } from '../../engine/engine.types';
import { endsSentence, toTimedWords, type TimedWord } from './timed-word';

/** A run of words shown as one paragraph in txt/docx and as one `segments` entry in json. */
export interface TranscriptParagraph {
  /** Raw engine speaker id, or null. */
  speaker: string | null;
  /** Seconds. */
  start: number;
  end: number;
  text: string;
}

export interface ParagraphOptions {
  /** A silence longer than this starts a new paragraph. */
  pauseMs: number;
  /** Past this many characters a paragraph ends at the next sentence end. */
  softMaxChars: number;
  /** Past this many characters a paragraph ends at the next word, for engines that give no punctuation. */
  hardMaxChars: number;
}

export const DEFAULT_PARAGRAPH_OPTIONS: ParagraphOptions = {
  pauseMs: 2000,
  softMaxChars: 500,
  hardMaxChars: 1000,
};

/**
 * Paragraph cuts: at every speaker change, at a pause longer than `pauseMs`, at a sentence end once the
 * paragraph is `softMaxChars` long, and anywhere once it is `hardMaxChars` long (an hour of unpunctuated
 * monologue must not become one paragraph).
 */
export function segmentParagraphs(
  words: readonly TranscriptWord[],
  overrides: Partial<ParagraphOptions> = {},
): TranscriptParagraph[] {
  const options: ParagraphOptions = { ...DEFAULT_PARAGRAPH_OPTIONS, ...overrides };
  const paragraphs: TranscriptParagraph[] = [];
  let current: TimedWord[] = [];
  let length = 0;
  for (const word of toTimedWords(words)) {
    const last = current.at(-1);
    if (last !== undefined && startsNewParagraph(last, word, length, options)) {
      paragraphs.push(toParagraph(current));
      current = [];
      length = 0;
    }
    current.push(word);
    length += word.text.length + 1;
  }
  if (current.length > 0) {
    paragraphs.push(toParagraph(current));
  }
  return paragraphs;
}

function startsNewParagraph(
  last: TimedWord,
  next: TimedWord,
  length: number,
  options: ParagraphOptions,
): boolean {
  return (
    last.speaker !== next.speaker ||
    next.startMs - last.endMs > options.pauseMs ||
    (length >= options.softMaxChars && endsSentence(last.text)) ||
    length >= options.hardMaxChars
  );
}

function toParagraph(words: readonly TimedWord[]): TranscriptParagraph {
  return {
    speaker: words[0].speaker,
    start: words[0].startMs / 1000,
    end: Math.max(...words.map((word) => word.endMs)) / 1000,
    text: words.map((word) => word.text).join(' '),
  };
}
