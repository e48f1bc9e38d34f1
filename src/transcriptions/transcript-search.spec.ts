import type { TranscriptWord } from '../engine/engine.types';
import { findOccurrences, searchTokens } from './transcript-search';

const words = (...spec: Array<[string, string | null]>): TranscriptWord[] =>
  spec.map(([word, speaker], index) => ({ word, start: index, end: index + 0.5, speaker }));

describe('searchTokens', () => {
  it('lower-cases, drops apostrophes and splits at punctuation and spaces', () => {
    expect(searchTokens(' Hello, World! Don’t well-known')).toEqual([
      'hello',
      'world',
      'dont',
      'well',
      'known',
    ]);
    expect(searchTokens('Straße ÜBER')).toEqual(['straße', 'über']);
    expect(searchTokens('?!')).toEqual([]);
  });
});

describe('findOccurrences', () => {
  const transcript = words(
    ['And', 'CHANNEL_1'],
    [' so,', 'CHANNEL_1'],
    [' my', 'CHANNEL_2'],
    [' fellow', 'CHANNEL_2'],
    [' Americans,', 'CHANNEL_2'],
    [' ask', 'CHANNEL_1'],
    [' not.', 'CHANNEL_1'],
    [' My', null],
    [' Fellow-Americans', null],
  );

  it('finds a word whatever its case and punctuation, with its times and speaker', () => {
    expect(findOccurrences(transcript, 'americans')).toEqual([
      { wordIndex: 4, wordCount: 1, start: 4, end: 4.5, speaker: 'CHANNEL_2', text: 'Americans,' },
      { wordIndex: 8, wordCount: 1, start: 8, end: 8.5, speaker: null, text: 'Fellow-Americans' },
    ]);
  });

  it('finds a phrase across words, and a phrase inside one hyphenated word', () => {
    const found = findOccurrences(transcript, 'My fellow, AMERICANS');
    expect(
      found.map(({ wordIndex, wordCount, start, end, text }) => ({ wordIndex, wordCount, start, end, text })),
    ).toEqual([
      { wordIndex: 2, wordCount: 3, start: 2, end: 4.5, text: 'my fellow Americans,' },
      { wordIndex: 7, wordCount: 2, start: 7, end: 8.5, text: 'My Fellow-Americans' },
    ]);
  });

  it('matches across sentence punctuation but only whole words', () => {
    expect(findOccurrences(transcript, 'not my')).toHaveLength(1);
    expect(findOccurrences(transcript, 'americ')).toEqual([]);
    expect(findOccurrences(transcript, 'so my fellow americans ask not my fellow americans and')).toEqual([]);
  });

  it('does not report overlapping occurrences', () => {
    expect(findOccurrences(words(['ha', null], ['ha', null], ['ha', null]), 'ha ha')).toHaveLength(1);
  });

  it('finds nothing for a query without letters or digits', () => {
    expect(findOccurrences(transcript, ' ,.! ')).toEqual([]);
  });
});
