import { describe, expect, it } from 'vitest';
import { clockTime, isLowConfidence, searchTranscript, speakerLabels } from './transcript-tools';

const words = [
  { word: 'And', speaker: 'B' },
  { word: 'so,', speaker: 'B' },
  { word: 'my', speaker: 'A' },
  { word: 'fellow', speaker: 'A' },
  { word: 'Américans:', speaker: 'A' },
  { word: 'ask', speaker: null },
  { word: 'so', speaker: 'B' },
];

describe('isLowConfidence', () => {
  it('marks words under 0.6, never a word without a confidence', () => {
    expect(isLowConfidence({ confidence: 0.59 })).toBe(true);
    expect(isLowConfidence({ confidence: 0.6 })).toBe(false);
    expect(isLowConfidence({})).toBe(false);
  });
});

describe('clockTime', () => {
  it('writes m:ss under an hour and h:mm:ss from one on', () => {
    expect(clockTime(0)).toBe('0:00');
    expect(clockTime(7.9)).toBe('0:07');
    expect(clockTime(62)).toBe('1:02');
    expect(clockTime(3723)).toBe('1:02:03');
  });
});

describe('searchTranscript', () => {
  it('finds each occurrence of a word, ignoring case and punctuation', () => {
    expect(searchTranscript(words, 'SO')).toEqual([
      { first: 1, length: 1 },
      { first: 6, length: 1 },
    ]);
  });
  it('finds a phrase across words, accents ignored, the last word by its start', () => {
    expect(searchTranscript(words, 'fellow americ')).toEqual([{ first: 3, length: 2 }]);
    expect(searchTranscript(words, 'my americans')).toEqual([]);
  });
  it('finds nothing for an empty phrase', () => {
    expect(searchTranscript(words, '  ')).toEqual([]);
  });
});

describe('speakerLabels', () => {
  it('numbers speakers by first appearance and uses the names given', () => {
    expect([...speakerLabels(words, {}).entries()]).toEqual([
      ['B', 'Speaker 1'],
      ['A', 'Speaker 2'],
    ]);
    expect(speakerLabels(words, { A: 'Alice' }).get('A')).toBe('Alice');
    expect(speakerLabels([{ speaker: 'constructor' }], {}).get('constructor')).toBe('Speaker 1');
  });
});
