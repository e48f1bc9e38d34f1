import { joinWords } from '../../engine/pipeline/transcript-assembly';
import { formatNumbers } from './number-formatting';
import { timedWords } from './text.fixtures';

describe('formatNumbers', () => {
  it.each([
    ['twenty five percent', '25%'],
    ['nineteen ninety nine', '1999'],
    ['in twenty twenty four we', 'in 2024 we'],
    ['back in nineteen oh five', 'back in 1905'],
    ['two thousand and five', '2005'],
    ['six hundred thousand people', '600,000 people'],
    ['one hundred and twenty three', '123'],
    ['twelve percent chance.', '12% chance.'],
    ['five per cent', '5%'],
    ['six times ten equals sixty', 'six times 10 equals 60'],
    ['one of them', 'one of them'],
    ['the first time', 'the first time'],
    ['the twenty first century', 'the 21st century'],
    ['on march third', 'on march 3rd'],
    ['the twelfth floor', 'the 12th floor'],
    ['meet at three thirty p m', 'meet at 3:30 PM'],
    ['at seven am sharp', 'at 7 AM sharp'],
    ['eleven oh five a.m.', '11:05 AM.'],
    ['it costs five dollars', 'it costs $5'],
    ['twenty five dollars and fifty cents', '$25.50'],
    ['forty euros', '€40'],
    ['three point five percent', '3.5%'],
    ['call four one five five five five one two three four', 'call 4155551234'],
    ['four oh five', '405'],
    ['go forward ten meters.', 'go forward 10 meters.'],
    ['Twenty-five people', '25 people'],
    ['oh no', 'oh no'],
    ['one two', 'one two'],
    ['a thousand', 'a thousand'],
  ])('%s → %s', (spoken, written) => {
    expect(joinWords(formatNumbers(timedWords(spoken)))).toBe(written);
  });

  it('times a merged number from its first word start to its last word end', () => {
    const words = formatNumbers(timedWords('about twenty five percent more'));
    expect(words.map((word) => [word.word, word.start, word.end])).toEqual([
      ['about', 0, 0.5],
      ['25%', 1, 3.5],
      ['more', 4, 4.5],
    ]);
  });

  it('keeps the lowest confidence of merged words and the punctuation around them', () => {
    const words = timedWords('Nineteen ninety nine.').map((word, index) => ({
      ...word,
      confidence: [0.9, 0.4, 0.8][index],
    }));
    expect(formatNumbers(words)).toEqual([
      { word: '1999.', start: 0, end: 2.5, speaker: 'SPEAKER_00', confidence: 0.4 },
    ]);
  });
});
