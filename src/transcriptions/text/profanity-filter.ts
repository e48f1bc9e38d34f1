import { profaneWords } from '@2toad/profanity';
import type { TranscriptWord } from '../../engine/engine.types';
import { splitWord, wordKeys } from './transcript-words';

/**
 * The English list of @2toad/profanity (MIT): the other languages' lists of that package hold ordinary
 * phrases ("en dollars", "5 heures"), so only the English one is used, whatever the transcript's language.
 * Entries of several words ("blow job") are matched word by word.
 */
const PROFANE_PHRASES: readonly string[][] = (profaneWords.get('en') ?? [])
  .map((entry) => entry.toLowerCase().split(/\s+/u))
  .filter((parts) => parts.every((part) => part.length > 0))
  .sort((a, b) => b.length - a.length);

/** Each profane word becomes its first letter and an asterisk per further letter ("shit" → "s***"). */
export function filterProfanity(words: readonly TranscriptWord[]): TranscriptWord[] {
  const keys = wordKeys(words);
  const out = [...words];
  for (let index = 0; index < keys.length; index++) {
    const phrase = PROFANE_PHRASES.find((parts) =>
      parts.every((part, offset) => keys[index + offset] === part),
    );
    if (!phrase) continue;
    for (let offset = 0; offset < phrase.length; offset++) out[index + offset] = masked(out[index + offset]);
    index += phrase.length - 1;
  }
  return out;
}

function masked(word: TranscriptWord): TranscriptWord {
  const { prefix, core, suffix } = splitWord(word.word);
  const letters = [...core];
  return {
    ...word,
    word: `${prefix}${letters[0] ?? ''}${'*'.repeat(Math.max(0, letters.length - 1))}${suffix}`,
  };
}
