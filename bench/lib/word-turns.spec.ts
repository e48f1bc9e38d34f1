import { diarizationErrorRate } from './der';
import { wordTurns } from './word-turns';

describe('wordTurns', () => {
  const words = [
    { start: 0, end: 1, speaker: 'A' },
    { start: 1.5, end: 2, speaker: 'B' },
    { start: 2, end: 2, speaker: 'B' },
    { start: 3, end: 4, speaker: null },
  ];

  it('makes one turn per word with a positive length, keeping gaps as no speech', () => {
    expect(wordTurns(words)).toEqual([
      { start: 0, end: 1, speaker: 'A' },
      { start: 1.5, end: 2, speaker: 'B' },
      { start: 3, end: 4, speaker: 'UNLABELLED' },
    ]);
  });

  it('relabels every word for the one-speaker baseline', () => {
    expect(new Set(wordTurns(words, 'ONE').map((turn) => turn.speaker))).toEqual(new Set(['ONE']));
  });

  it('counts the gaps between words as missed speech', () => {
    const reference = [{ start: 0, end: 2, speaker: 'X' }];
    const result = diarizationErrorRate(reference, wordTurns([words[0], words[1]], 'ONE'), {
      collar: 0,
      skipOverlap: false,
    });
    expect(result.missed).toBeCloseTo(0.5);
    expect(result.der).toBeCloseTo(0.25);
  });
});
