import { layoutCaptionLines, type LayoutWord } from './caption-lines';
import { LONG_WORD } from './export.fixtures';
import { textWidth } from './timed-word';

const layoutWords = (text: string): LayoutWord[] =>
  text.split(' ').map((word) => ({ text: word, width: textWidth(word) }));

describe('layoutCaptionLines', () => {
  it('keeps text that fits on one line on one line', () => {
    expect(layoutCaptionLines(layoutWords('Good morning and welcome to the show.'), null, 42)).toEqual([
      'Good morning and welcome to the show.',
    ]);
  });

  it('breaks two lines at the boundary closest to the middle', () => {
    const lines = layoutCaptionLines(
      layoutWords('It started in a garage in Zürich with two laptops and coffee.'),
      null,
      42,
    );
    expect(lines).toEqual(['It started in a garage in Zürich', 'with two laptops and coffee.']);
  });

  it('counts the speaker prefix into the first line', () => {
    const text = 'Thank you, it is a pleasure to be here.';
    expect(layoutCaptionLines(layoutWords(text), null, 42)).toEqual([text]);
    expect(layoutCaptionLines(layoutWords(text), 'Speaker 2: ', 42)).toEqual([
      'Speaker 2: Thank you, it',
      'is a pleasure to be here.',
    ]);
  });

  it('counts an emoji or an accented letter as one character', () => {
    const text = `${'é'.normalize('NFD').repeat(20)} 👍🏽👍🏽 ${'x'.repeat(18)}`;
    expect(layoutCaptionLines(layoutWords(text), null, 42)).toEqual([text]);
  });

  it('refuses words that need more than two lines', () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';
    expect(layoutCaptionLines(layoutWords(text), null, 42)).toBeNull();
  });

  it('puts a word wider than a line on its own line, after the prefix if there is one', () => {
    expect(layoutCaptionLines(layoutWords(LONG_WORD), null, 42)).toEqual([LONG_WORD]);
    expect(layoutCaptionLines(layoutWords(LONG_WORD), 'Speaker 1: ', 42)).toEqual(['Speaker 1:', LONG_WORD]);
    expect(layoutCaptionLines(layoutWords(`a ${LONG_WORD}`), null, 42)).toBeNull();
  });
});
