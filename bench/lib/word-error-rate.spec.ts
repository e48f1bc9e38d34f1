import { editDistance, normalizeWords, overallWordErrorRate, wordErrorRate } from './word-error-rate';

describe('word error rate', () => {
  it('normalises case and punctuation but keeps numbers and inner apostrophes', () => {
    expect(normalizeWords("Hello, World! It's 10:30 -- 'quoted'")).toEqual([
      'hello',
      'world',
      "it's",
      '10',
      '30',
      'quoted',
    ]);
  });

  it('drops PocketSphinx pronunciation markers', () => {
    expect(normalizeWords('to(2) be')).toEqual(['to', 'be']);
  });

  it('counts substitutions, deletions and insertions', () => {
    expect(editDistance(['a', 'b', 'c'], ['a', 'x', 'c'])).toBe(1);
    expect(editDistance(['a', 'b', 'c'], ['a', 'c'])).toBe(1);
    expect(editDistance(['a', 'b'], ['a', 'b', 'c', 'd'])).toBe(2);
    expect(editDistance([], ['a'])).toBe(1);
    expect(editDistance(['a'], [])).toBe(1);
  });

  it('is zero for identical text and one for a fully wrong hypothesis', () => {
    expect(wordErrorRate('Go forward ten meters.', 'go forward ten meters').rate).toBe(0);
    expect(wordErrorRate('go forward', 'stop back').rate).toBe(1);
  });

  it('can exceed one with insertions', () => {
    expect(wordErrorRate('yes', 'yes no maybe').rate).toBe(2);
  });

  it('sums edits over reference words for the overall rate', () => {
    const overall = overallWordErrorRate([wordErrorRate('a b c d', 'a b c x'), wordErrorRate('e f', 'g h')]);
    expect(overall).toBeCloseTo(3 / 6);
  });
});
