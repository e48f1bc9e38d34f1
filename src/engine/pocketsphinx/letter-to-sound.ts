/**
 * A small rule-based English letter-to-sound converter (CMU phone set), used only for vocabulary words that
 * the pronunciation dictionary does not know. It aims at a plausible pronunciation, not a perfect one:
 * the acoustic search tolerates small errors, and a word with no entry at all can never be recognised.
 */

type Rule = readonly [graphemes: string, phones: string];

/** Longest graphemes first; the first rule that matches at the cursor wins. */
const RULES: readonly Rule[] = [
  ['tion', 'SH AH N'],
  ['sion', 'ZH AH N'],
  ['ough', 'AO'],
  ['augh', 'AO'],
  ['eigh', 'EY'],
  ['tch', 'CH'],
  ['dge', 'JH'],
  ['igh', 'AY'],
  ['sch', 'S K'],
  ['ck', 'K'],
  ['ch', 'CH'],
  ['sh', 'SH'],
  ['th', 'TH'],
  ['ph', 'F'],
  ['wh', 'W'],
  ['qu', 'K W'],
  ['ng', 'NG'],
  ['kn', 'N'],
  ['wr', 'R'],
  ['gh', 'G'],
  ['ee', 'IY'],
  ['ea', 'IY'],
  ['oo', 'UW'],
  ['ou', 'AW'],
  ['ow', 'OW'],
  ['oi', 'OY'],
  ['oy', 'OY'],
  ['ai', 'EY'],
  ['ay', 'EY'],
  ['au', 'AO'],
  ['aw', 'AO'],
  ['ei', 'IY'],
  ['ey', 'IY'],
  ['ie', 'IY'],
  ['oa', 'OW'],
  ['ue', 'UW'],
  ['ew', 'UW'],
  ['ar', 'AA R'],
  ['er', 'ER'],
  ['ir', 'ER'],
  ['ur', 'ER'],
  ['or', 'AO R'],
  ['x', 'K S'],
  ['a', 'AE'],
  ['b', 'B'],
  ['c', 'K'],
  ['d', 'D'],
  ['e', 'EH'],
  ['f', 'F'],
  ['g', 'G'],
  ['h', 'HH'],
  ['i', 'IH'],
  ['j', 'JH'],
  ['k', 'K'],
  ['l', 'L'],
  ['m', 'M'],
  ['n', 'N'],
  ['o', 'AA'],
  ['p', 'P'],
  ['q', 'K'],
  ['r', 'R'],
  ['s', 'S'],
  ['t', 'T'],
  ['u', 'AH'],
  ['v', 'V'],
  ['w', 'W'],
  ['y', 'IY'],
  ['z', 'Z'],
];

const LONG_VOWEL: Record<string, string> = { a: 'EY', e: 'IY', i: 'AY', o: 'OW', u: 'UW' };
const DIGIT_WORDS = [
  'Z IH R OW',
  'W AH N',
  'T UW',
  'TH R IY',
  'F AO R',
  'F AY V',
  'S IH K S',
  'S EH V AH N',
  'EY T',
  'N AY N',
];
const LETTER_NAMES: Record<string, string> = {
  a: 'EY',
  b: 'B IY',
  c: 'S IY',
  d: 'D IY',
  e: 'IY',
  f: 'EH F',
  g: 'JH IY',
  h: 'EY CH',
  i: 'AY',
  j: 'JH EY',
  k: 'K EY',
  l: 'EH L',
  m: 'EH M',
  n: 'EH N',
  o: 'OW',
  p: 'P IY',
  q: 'K Y UW',
  r: 'AA R',
  s: 'EH S',
  t: 'T IY',
  u: 'Y UW',
  v: 'V IY',
  w: 'D AH B AH L Y UW',
  x: 'EH K S',
  y: 'W AY',
  z: 'Z IY',
};

const isVowel = (letter: string | undefined): boolean => letter !== undefined && 'aeiouy'.includes(letter);

/** Phones for a word; null when it has no letters or digits. */
export function letterToSound(word: string): string | null {
  const letters = word.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (letters.length === 0) return null;
  if (/^[a-z]{1,4}$/.test(letters) && !/[aeiouy]/.test(letters)) {
    // Consonant-only short words are acronyms: spell them.
    return [...letters].map((letter) => LETTER_NAMES[letter]).join(' ');
  }
  const phones: string[] = [];
  let index = 0;
  while (index < letters.length) {
    const rest = letters.slice(index);
    const letter = letters[index];
    if (/[0-9]/.test(letter)) {
      phones.push(DIGIT_WORDS[Number(letter)]);
      index += 1;
      continue;
    }
    // Silent final e, and the long vowel it marks (vowel-consonant-e).
    if (letter === 'e' && index === letters.length - 1 && index > 1) break;
    if (
      LONG_VOWEL[letter] &&
      index + 2 === letters.length - 1 &&
      letters.at(-1) === 'e' &&
      !isVowel(letters[index + 1])
    ) {
      phones.push(LONG_VOWEL[letter]);
      index += 1;
      continue;
    }
    if ((letter === 'c' || letter === 'g') && 'eiy'.includes(letters[index + 1] ?? '-')) {
      phones.push(letter === 'c' ? 'S' : 'JH');
      index += 1;
      continue;
    }
    if (letter === 'y' && index === 0) {
      phones.push('Y');
      index += 1;
      continue;
    }
    const rule = RULES.find(([graphemes]) => rest.startsWith(graphemes));
    if (!rule) {
      index += 1;
      continue;
    }
    phones.push(rule[1]);
    index += rule[0].length;
  }
  const joined = phones.join(' ').split(' ');
  // Doubled consonants ("ll", "ss") are one sound.
  const collapsed = joined.filter((phone, position) => position === 0 || phone !== joined[position - 1]);
  return collapsed.length > 0 ? collapsed.join(' ') : null;
}
