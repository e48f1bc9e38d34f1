/**
 * English number words as a recogniser writes them ("twenty five", "four one five", "nineteen ninety nine"),
 * read into groups and runs. Number formatting writes them as digits; PII redaction reads the digits they
 * say, whether or not the transcript is formatted.
 */

/** Month names, which make the numbers around them a date ("march third"). */
export const MONTH_NAMES: ReadonlySet<string> = new Set([
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]);

const UNITS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
};
const TEENS: Readonly<Record<string, number>> = {
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Readonly<Record<string, number>> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const ORDINAL_UNITS: Readonly<Record<string, number>> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
};
const ORDINAL_TEENS: Readonly<Record<string, number>> = {
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
};
const ORDINAL_TENS: Readonly<Record<string, number>> = {
  twentieth: 20,
  thirtieth: 30,
  fortieth: 40,
  fiftieth: 50,
  sixtieth: 60,
  seventieth: 70,
  eightieth: 80,
  ninetieth: 90,
};
const SCALES: Readonly<Record<string, number>> = { thousand: 1e3, million: 1e6, billion: 1e9 };
const ORDINAL_SCALES: Readonly<Record<string, number>> = { hundredth: 100, thousandth: 1e3, millionth: 1e6 };

type TokenKind = 'unit' | 'teen' | 'tens' | 'compound' | 'hundred' | 'scale';

interface NumberToken {
  kind: TokenKind;
  value: number;
  ordinal: boolean;
}

function lookup(key: string): NumberToken | null {
  const table: Array<[Readonly<Record<string, number>>, TokenKind, boolean]> = [
    [UNITS, 'unit', false],
    [TEENS, 'teen', false],
    [TENS, 'tens', false],
    [SCALES, 'scale', false],
    [ORDINAL_UNITS, 'unit', true],
    [ORDINAL_TEENS, 'teen', true],
    [ORDINAL_TENS, 'tens', true],
    [ORDINAL_SCALES, 'scale', true],
  ];
  if (key === 'hundred') return { kind: 'hundred', value: 100, ordinal: false };
  for (const [words, kind, ordinal] of table) {
    const value = words[key];
    if (value !== undefined) {
      return { kind: kind === 'scale' && value === 100 ? 'hundred' : kind, value, ordinal };
    }
  }
  // "twenty-five", "twenty-first": one word that says a tens and a unit.
  const [tens, unit, ...rest] = key.split('-');
  if (rest.length === 0 && unit !== undefined && TENS[tens] !== undefined) {
    const cardinal = UNITS[unit];
    const ordinal = ORDINAL_UNITS[unit];
    if (cardinal !== undefined && cardinal > 0)
      return { kind: 'compound', value: TENS[tens] + cardinal, ordinal: false };
    if (ordinal !== undefined) return { kind: 'compound', value: TENS[tens] + ordinal, ordinal: true };
  }
  return null;
}

/** One number said as words: "twenty five", "six hundred thousand", "twenty first", "oh". */
export interface NumberGroup {
  /** Word indices, inclusive. */
  from: number;
  to: number;
  value: number;
  ordinal: boolean;
  /** The digits it says: the value, or "0" for "oh". */
  digits: string;
}

/** Numbers said one after the other ("four one five", "nineteen ninety nine"): one group or more. */
export interface NumberRun {
  from: number;
  to: number;
  groups: NumberGroup[];
}

type Previous = 'none' | 'unit' | 'teen' | 'tens' | 'compound' | 'hundred' | 'scale';

/** What may follow what inside one number: "twenty five" and "five hundred" are one, "one two" is two. */
const MAY_FOLLOW: Readonly<Record<TokenKind, readonly Previous[]>> = {
  unit: ['none', 'tens', 'hundred', 'scale'],
  teen: ['none', 'hundred', 'scale'],
  tens: ['none', 'hundred', 'scale'],
  compound: ['none', 'hundred', 'scale'],
  hundred: ['unit', 'teen', 'tens', 'compound'],
  scale: ['unit', 'teen', 'tens', 'compound', 'hundred'],
};

/** The group of number words starting at `from`, or null when the word there starts none. */
export function readNumberGroup(keys: readonly string[], from: number, allowOh = false): NumberGroup | null {
  if (allowOh && keys[from] === 'oh') return { from, to: from, value: 0, ordinal: false, digits: '0' };
  let total = 0;
  let current = 0;
  let previous: Previous = 'none';
  let lastScale = Number.POSITIVE_INFINITY;
  let to = -1;
  let ordinal = false;
  for (let index = from; index < keys.length; index++) {
    let token = lookup(keys[index]);
    if (!token && keys[index] === 'and' && (previous === 'hundred' || previous === 'scale')) {
      const next = lookup(keys[index + 1] ?? '');
      if (next && next.kind !== 'hundred' && next.kind !== 'scale') continue;
    }
    if (!token) break;
    if (!MAY_FOLLOW[token.kind].includes(previous)) break;
    if (token.kind === 'unit' && token.value === 0 && previous !== 'none') break;
    if (token.kind === 'unit' && previous === 'tens') token = { ...token, kind: 'compound' };
    if (token.kind === 'hundred') {
      if (current === 0 || current >= 100) break;
      current *= 100;
    } else if (token.kind === 'scale') {
      if (token.value >= lastScale || current === 0) break;
      total += current * token.value;
      current = 0;
      lastScale = token.value;
    } else {
      current += token.value;
    }
    to = index;
    previous = token.kind;
    if (token.ordinal) {
      ordinal = true;
      break;
    }
    // "zero" is a number of its own: "zero five" is two.
    if (token.kind === 'unit' && token.value === 0) break;
  }
  if (to < from) return null;
  const value = total + current;
  return { from, to, value, ordinal, digits: String(value) };
}

/** Every run of number words, in order. "oh" counts as 0 inside a run ("four oh five"), never alone. */
export function findNumberRuns(keys: readonly string[]): NumberRun[] {
  const runs: NumberRun[] = [];
  let index = 0;
  while (index < keys.length) {
    const first = readNumberGroup(keys, index);
    if (!first) {
      index++;
      continue;
    }
    const groups = [first];
    let last = first;
    while (!last.ordinal) {
      const next = readNumberGroup(keys, last.to + 1, true);
      // A trailing "oh" after a single number ("five oh") is the interjection; after digits it is a zero.
      const trailingOh =
        next?.digits === '0' && keys[next.to] === 'oh' && !readNumberGroup(keys, next.to + 1, true);
      if (!next || (trailingOh && groups.length < 2)) break;
      groups.push(next);
      last = next;
    }
    runs.push({ from: first.from, to: last.to, groups });
    index = last.to + 1;
  }
  return runs;
}

/** The digits a run says, one group after the other: "four one five" → "415", "nineteen ninety" → "1990". */
export function runDigits(run: NumberRun): string {
  return run.groups.map((group) => group.digits).join('');
}
