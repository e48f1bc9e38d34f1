import { IsNotEmpty, IsString, MaxLength, NotContains } from 'class-validator';
import { joinWords } from '../engine/pipeline/transcript-assembly';
import type { TranscriptWord } from '../engine/engine.types';
import type { Schema } from '../openapi/contract-types';

export const MAX_TRANSCRIPT_QUERY_LENGTH = 200;

export class TranscriptSearchQueryDto {
  @IsString({ message: 'q must be one string' })
  @IsNotEmpty({ message: 'q must not be empty' })
  @MaxLength(MAX_TRANSCRIPT_QUERY_LENGTH)
  @NotContains('\u0000', { message: 'q must not contain NUL characters' })
  q: string;
}

/** One place in a transcript where the searched words are said. */
export type TranscriptOccurrence = Schema<'TranscriptOccurrence'>;

/**
 * The comparable tokens of a text: lower case (Unicode NFKC), apostrophes dropped ("Don't" = "dont"), split at
 * every character that is not a letter, mark or digit, so punctuation neither matches nor prevents a match.
 */
export function searchTokens(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['\u2019\u02bc]/g, '')
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((token) => token.length > 0);
}

/**
 * Every place where the query's tokens appear as consecutive tokens of the words, left to right and not
 * overlapping. Whole tokens only: "car" does not find "cards". Empty when the query has no token.
 */
export function findOccurrences(words: readonly TranscriptWord[], query: string): TranscriptOccurrence[] {
  const wanted = searchTokens(query);
  if (wanted.length === 0) return [];
  const tokens = words.flatMap((word, wordIndex) =>
    searchTokens(word.word).map((token) => ({ token, wordIndex })),
  );
  const occurrences: TranscriptOccurrence[] = [];
  let position = 0;
  while (position + wanted.length <= tokens.length) {
    if (wanted.every((token, offset) => tokens[position + offset].token === token)) {
      const first = tokens[position].wordIndex;
      const last = tokens[position + wanted.length - 1].wordIndex;
      const matched = words.slice(first, last + 1);
      occurrences.push({
        wordIndex: first,
        wordCount: matched.length,
        start: words[first].start,
        end: words[last].end,
        speaker: words[first].speaker,
        text: joinWords(matched),
      });
      position += wanted.length;
    } else {
      position += 1;
    }
  }
  return occurrences;
}
