import { describe, expect, it } from 'vitest';
import { activeWordIndex, paragraphs } from './word-index';

const words = [
  { word: 'and', start: 0.3, end: 0.5, speaker: 0 },
  { word: 'so', start: 0.5, end: 0.9, speaker: 0 },
  { word: 'my', start: 1.2, end: 1.4, speaker: 1 },
  { word: 'fellow', start: 1.4, end: 1.8, speaker: 1 },
];

describe('activeWordIndex', () => {
  it('is -1 before the first word', () => {
    expect(activeWordIndex(words, 0)).toBe(-1);
    expect(activeWordIndex([], 5)).toBe(-1);
  });
  it('is the word whose start is reached, exactly at its start too', () => {
    expect(activeWordIndex(words, 0.3)).toBe(0);
    expect(activeWordIndex(words, 0.5)).toBe(1);
    expect(activeWordIndex(words, 1.5)).toBe(3);
  });
  it('keeps the previous word through a pause and the last word after the end', () => {
    expect(activeWordIndex(words, 1.0)).toBe(1);
    expect(activeWordIndex(words, 99)).toBe(3);
  });
});

describe('paragraphs', () => {
  it('starts a paragraph at each change of speaker, keeping word indexes', () => {
    const result = paragraphs(words);
    expect(result.map((p) => [p.speaker, p.firstIndex, p.words.length])).toEqual([
      [0, 0, 2],
      [1, 2, 2],
    ]);
  });
  it('starts a paragraph after a long pause of the same speaker', () => {
    const result = paragraphs([
      { word: 'a', start: 0, end: 1 },
      { word: 'b', start: 5, end: 6 },
    ]);
    expect(result).toHaveLength(2);
    expect(result[0].speaker).toBeNull();
  });
});
