import { letterToSound } from './letter-to-sound';
import { buildVocabularyEntries } from './vocabulary-entries';

describe('letterToSound', () => {
  it.each([
    ['kubernetes', 'K AH B ER N EH T EH S'],
    ['nest', 'N EH S T'],
    ['shape', 'SH EY P'],
    ['cell', 'S EH L'],
    ['api', 'AE P IH'],
    ['sql', 'EH S K Y UW EH L'],
    ['3d', 'TH R IY D'],
  ])('pronounces %s', (word, phones) => {
    expect(letterToSound(word)).toBe(phones);
  });

  it('gives nothing for a word without letters or digits', () => {
    expect(letterToSound("--'")).toBeNull();
  });
});

describe('buildVocabularyEntries', () => {
  const dictionary: Record<string, string> = { dark: 'D AA R K', suit: 'S UW T' };
  const lookup = (word: string): string | null => dictionary[word] ?? null;

  it('joins phrase pronunciations, keeps the spelling and de-duplicates case-insensitively', () => {
    expect(buildVocabularyEntries(['Dark suit', 'dark SUIT', 'Zorblax!'], lookup)).toEqual([
      { token: 'vocab_0_', phones: 'D AA R K S UW T', display: ['Dark', 'suit'] },
      { token: 'vocab_1_', phones: 'Z AO R B L AE K S', display: ['Zorblax'] },
    ]);
  });
});
