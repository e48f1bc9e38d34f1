import { channelSpeaker, countSpeakers, mergeChannelWords } from './transcript-assembly';

const word = (text: string, start: number, end = start + 0.3) => ({ word: text, start, end });

describe('mergeChannelWords', () => {
  it('labels each word with its channel and orders all words by start time', () => {
    const merged = mergeChannelWords([
      [word('hello', 0.5), word('there', 2.0)],
      [word('hi', 1.0), word('yes', 1.5), word('bye', 3.0)],
    ]);
    expect(merged.map((w) => [w.word, w.speaker])).toEqual([
      ['hello', 'CHANNEL_1'],
      ['hi', 'CHANNEL_2'],
      ['yes', 'CHANNEL_2'],
      ['there', 'CHANNEL_1'],
      ['bye', 'CHANNEL_2'],
    ]);
  });

  it('puts words that start together in channel order, and keeps each channel’s own order', () => {
    const merged = mergeChannelWords([[word('a', 1.0), word('b', 1.0)], [word('x', 1.0)], [word('p', 0.2)]]);
    expect(merged.map((w) => `${w.speaker}:${w.word}`)).toEqual([
      'CHANNEL_3:p',
      'CHANNEL_1:a',
      'CHANNEL_1:b',
      'CHANNEL_2:x',
    ]);
  });

  it('keeps timings and confidence; a silent channel adds nothing and counts as no speaker', () => {
    const merged = mergeChannelWords([[], [{ word: 'only', start: 4, end: 4.5, confidence: 0.8 }]]);
    expect(merged).toEqual([{ word: 'only', start: 4, end: 4.5, confidence: 0.8, speaker: 'CHANNEL_2' }]);
    expect(countSpeakers(merged)).toBe(1);
  });

  it('names channels from 1', () => {
    expect([0, 1, 7].map(channelSpeaker)).toEqual(['CHANNEL_1', 'CHANNEL_2', 'CHANNEL_8']);
  });
});
