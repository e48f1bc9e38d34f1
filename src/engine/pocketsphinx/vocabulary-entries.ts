import { MAX_VOCABULARY_WORD_LENGTH } from '../../vocabularies/vocabulary-word';
import { letterToSound } from './letter-to-sound';

/** A custom word as the decoder sees it: a private dictionary token that maps back to the user's spelling. */
export interface VocabularyEntry {
  /** Dictionary and language-model token, unique and never a real word ("vocab_3_"). */
  token: string;
  /** CMU phones, space separated. */
  phones: string;
  /** The words reported when the token is recognised, as the user spelled them. */
  display: string[];
}

/** Looks a lower-case word up in the pronunciation dictionary. */
export type PronunciationLookup = (word: string) => string | null;

/**
 * Turns the request's vocabulary into decoder entries. Phrases become one token whose pronunciation is the
 * words' pronunciations in a row; words the dictionary lacks get a letter-to-sound pronunciation.
 */
export function buildVocabularyEntries(
  vocabulary: readonly string[],
  lookup: PronunciationLookup,
): VocabularyEntry[] {
  const seen = new Set<string>();
  const entries: VocabularyEntry[] = [];
  for (const item of vocabulary) {
    // The API refuses longer entries; this also bounds vocabularies saved before the limit existed.
    if ([...item.trim()].length > MAX_VOCABULARY_WORD_LENGTH) continue;
    const display = item
      .trim()
      .split(/[\s_]+/)
      .map((word) => word.replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, ''))
      .filter((word) => word.length > 0);
    const key = display.join(' ').toLowerCase();
    if (display.length === 0 || seen.has(key)) continue;
    const pronunciations = display.map((word) => pronounce(word, lookup));
    if (pronunciations.some((phones) => phones === null)) continue;
    seen.add(key);
    entries.push({ token: `vocab_${entries.length}_`, phones: pronunciations.join(' '), display });
  }
  return entries;
}

function pronounce(word: string, lookup: PronunciationLookup): string | null {
  const lower = word.toLowerCase();
  return lookup(lower) ?? lookup(lower.replace(/'/g, '')) ?? letterToSound(lower);
}
