import type { RecognizedWord } from '../engine.types';

/**
 * A gap between two words at least this long ends a sentence. PocketSphinx emits no punctuation, so pauses are
 * the only sentence evidence it gives: inside a sentence, gaps between words are mostly under 0.3 s, while a
 * speaker who finishes a sentence usually breathes for half a second or more. 0.6 s splits at clear breaks and
 * leaves hesitations inside a sentence alone.
 */
export const SENTENCE_PAUSE_SECONDS = 0.6;

/** Standalone "i" and its contractions, which English always writes with a capital. */
const FIRST_PERSON = /^i(?:'(?:m|ll|ve|d))?$/;

/**
 * Turns one chunk's lower-case PocketSphinx words into sentences: the first word of the chunk and every word after
 * a pause of at least `pauseSeconds` start with a capital; the word before such a pause and the chunk's last word
 * end with a full stop; "i", "i'm", "i'll", "i've", "i'd" become "I", "I'm", .... Words the user gave in a
 * vocabulary (`keepSpelling`) keep their spelling apart from the full stop. Times are never changed.
 */
export function formatSentences(
  words: readonly RecognizedWord[],
  keepSpelling: ReadonlySet<RecognizedWord> = new Set(),
  pauseSeconds = SENTENCE_PAUSE_SECONDS,
): RecognizedWord[] {
  return words.map((word, index) => {
    const previous = words[index - 1];
    const next = words[index + 1];
    const startsSentence = previous === undefined || isPause(previous, word, pauseSeconds);
    const endsSentence = next === undefined || isPause(word, next, pauseSeconds);
    let text = word.word;
    if (!keepSpelling.has(word)) {
      if (FIRST_PERSON.test(text)) text = `I${text.slice(1)}`;
      else if (startsSentence) text = capitalise(text);
    }
    if (endsSentence && !/[.!?]$/.test(text)) text = `${text}.`;
    return text === word.word ? word : { ...word, word: text };
  });
}

/** Compared in whole milliseconds, the precision of word times, so 2.9 − 2.3 counts as 0.6. */
function isPause(before: RecognizedWord, after: RecognizedWord, pauseSeconds: number): boolean {
  return Math.round((after.start - before.end) * 1000) >= Math.round(pauseSeconds * 1000);
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
