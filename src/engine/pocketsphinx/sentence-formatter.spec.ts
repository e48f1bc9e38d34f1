import type { RecognizedWord } from '../engine.types';
import { formatSentences, SENTENCE_PAUSE_SECONDS } from './sentence-formatter';

/** Words 0.1 s apart; `pauses` lists the indexes before which a longer gap of `gap` seconds is inserted. */
function timed(text: string, pauses: number[] = [], gap = SENTENCE_PAUSE_SECONDS): RecognizedWord[] {
  let cursor = 1;
  return text.split(' ').map((word, index) => {
    cursor += pauses.includes(index) ? gap : 0.1;
    const result = { word, start: Number(cursor.toFixed(2)), end: Number((cursor + 0.3).toFixed(2)) };
    cursor += 0.3;
    return result;
  });
}

const text = (words: readonly RecognizedWord[]): string => words.map((word) => word.word).join(' ');

describe('formatSentences', () => {
  it('capitalises the first word and ends the chunk with a full stop', () => {
    expect(text(formatSentences(timed('go forward ten meters')))).toBe('Go forward ten meters.');
  });

  it('splits sentences at a pause of the threshold and not at a shorter one', () => {
    const atThreshold = formatSentences(timed('it was late we went home', [3]));
    expect(text(atThreshold)).toBe('It was late. We went home.');
    const shorter = formatSentences(timed('it was late we went home', [3], SENTENCE_PAUSE_SECONDS - 0.05));
    expect(text(shorter)).toBe('It was late we went home.');
  });

  it('writes standalone i and its contractions with a capital, and no other word starting with i', () => {
    expect(text(formatSentences(timed("so i think i'm sure i'll go i've been i'd say it is")))).toBe(
      "So I think I'm sure I'll go I've been I'd say it is.",
    );
  });

  it('keeps the spelling of vocabulary words, adding only the full stop', () => {
    const [the, phone, from, acme, corp] = timed('the iphone from acme corp');
    const iPhone = { ...phone, word: 'iPhone' };
    const CORP = { ...corp, word: 'CORP' };
    const words = [the, iPhone, from, acme, CORP];
    expect(text(formatSentences(words, new Set([iPhone, CORP])))).toBe('The iPhone from acme CORP.');
    const [ebay, ...rest] = timed('ebay is down');
    const eBay = { ...ebay, word: 'eBay' };
    expect(text(formatSentences([eBay, ...rest], new Set([eBay])))).toBe('eBay is down.');
  });

  it('never changes word times or the number of words', () => {
    const words = timed('one two three four five', [2], 1.5);
    const formatted = formatSentences(words);
    expect(formatted.map(({ start, end }) => ({ start, end }))).toEqual(
      words.map(({ start, end }) => ({ start, end })),
    );
    expect(text(formatted)).toBe('One two. Three four five.');
  });

  it('returns nothing for no words and one full sentence for a single word', () => {
    expect(formatSentences([])).toEqual([]);
    expect(text(formatSentences(timed('yes')))).toBe('Yes.');
  });
});
