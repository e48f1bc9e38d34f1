import type { TranscriptWord } from '../../engine/engine.types';
import { applyReplacements, splitWord, wordKeys, type WordReplacement } from './transcript-words';

/** One `custom_spelling` entry: any of `from` (a word or a phrase) is written as `to`. */
export interface CustomSpelling {
  from: string[];
  to: string;
}

/**
 * Replaces each word or phrase of `from` (matched case-insensitively on whole words, punctuation around
 * them ignored) by `to`, written exactly as given. The longest match at a position wins, so
 * {from: ["new york city"]} beats {from: ["new york"]}; entries are tried in their order otherwise.
 */
export function applyCustomSpelling(
  words: readonly TranscriptWord[],
  spellings: readonly CustomSpelling[],
): TranscriptWord[] {
  if (spellings.length === 0) return [...words];
  const phrases = spellings
    .flatMap((spelling) => spelling.from.map((from) => ({ keys: phraseKeys(from), to: spelling.to })))
    .filter((phrase) => phrase.keys.length > 0)
    .sort((a, b) => b.keys.length - a.keys.length);
  const keys = wordKeys(words);
  const replacements: WordReplacement[] = [];
  for (let index = 0; index < keys.length; index++) {
    const match = phrases.find((phrase) => phrase.keys.every((key, offset) => keys[index + offset] === key));
    if (!match) continue;
    replacements.push({ from: index, to: index + match.keys.length - 1, text: match.to });
    index += match.keys.length - 1;
  }
  return applyReplacements(words, replacements);
}

function phraseKeys(phrase: string): string[] {
  return phrase
    .split(/\s+/u)
    .map((part) => splitWord(part).core.toLowerCase())
    .filter((key) => key.length > 0);
}
