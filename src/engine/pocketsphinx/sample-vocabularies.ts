import * as fs from 'node:fs';

/**
 * Large vocabularies for the PocketSphinx vocabulary test and bench (pocketsphinx-vocabulary.integration-spec.ts,
 * bench/vocabulary-cost.ts): the same words in both, so a crash the bench counts is one the test can reproduce.
 */

/** A deterministic pseudo-random generator (mulberry32), so every run adds the same words. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` random lower-case words of `minLength` to `maxLength` letters (unknown to the dictionary, mostly). */
export function randomWords(count: number, minLength: number, maxLength: number, seed: number): string[] {
  const random = generator(seed);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return Array.from({ length: count }, () => {
    const length = minLength + Math.floor(random() * (maxLength - minLength + 1));
    return Array.from({ length }, () => letters[Math.floor(random() * letters.length)]).join('');
  });
}

/** `count` real words spread evenly over a CMU pronunciation dictionary: the common case (terms, names). */
export function dictionaryWords(dictionaryPath: string, count: number): string[] {
  const lines = fs
    .readFileSync(dictionaryPath, 'utf8')
    .split('\n')
    .filter((line) => /^[a-z]+ /.test(line));
  const step = Math.floor(lines.length / count);
  return Array.from({ length: count }, (_, index) => lines[index * step].split(' ')[0]);
}
