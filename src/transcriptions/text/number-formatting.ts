import type { TranscriptWord } from '../../engine/engine.types';
import {
  findNumberRuns,
  MONTH_NAMES,
  readNumberGroup,
  type NumberGroup,
  type NumberRun,
} from './spoken-numbers';
import { applyReplacements, wordKeys, type WordReplacement } from './transcript-words';

const CURRENCIES: Readonly<Record<string, string>> = {
  dollar: '$',
  dollars: '$',
  euro: '€',
  euros: '€',
  pound: '£',
  pounds: '£',
};

/**
 * Numbers said as words written as digits, the way a person types them: cardinals ("twenty five" → "25",
 * "six hundred thousand" → "600,000"), ordinals ("twenty first" → "21st"), years ("nineteen ninety nine" →
 * "1999"), times ("three thirty p m" → "3:30 PM"), percentages ("twelve percent" → "12%"), currency amounts
 * ("five dollars and fifty cents" → "$5.50"), decimals ("three point five" → "3.5") and digit runs such as
 * phone numbers ("four one five five five five" → "415555"). A lone one-word number below ten stays a word
 * ("one of them", "six times") unless a unit follows it, as style guides write them; so do "first" to
 * "ninth" unless a month comes before. The words a number was said in become one word, timed from the
 * first one's start to the last one's end.
 */
export function formatNumbers(words: readonly TranscriptWord[]): TranscriptWord[] {
  const keys = wordKeys(words);
  const replacements: WordReplacement[] = [];
  for (const run of findNumberRuns(keys)) replacements.push(...formatRun(keys, run));
  return applyReplacements(words, replacements);
}

function formatRun(keys: readonly string[], run: NumberRun): WordReplacement[] {
  const { groups } = run;
  const time = readTime(keys, groups);
  if (time) return [time];
  const year = readYear(groups);
  if (year !== null) return [{ from: run.from, to: run.to, text: year }];
  if (groups.length >= 3 && groups.every((group) => !group.ordinal && group.value <= 99)) {
    return [{ from: run.from, to: run.to, text: groups.map((group) => group.digits).join('') }];
  }
  const replacements: WordReplacement[] = [];
  groups.forEach((group, index) => {
    const single = formatGroup(keys, group, index === groups.length - 1);
    if (single) replacements.push(single);
  });
  return replacements;
}

/** "nineteen ninety nine", "twenty twenty four", "nineteen oh five": two-digit halves of a year. */
function readYear(groups: readonly NumberGroup[]): string | null {
  const [century, ...rest] = groups;
  const oneWord = (group: NumberGroup): boolean => group.from === group.to;
  if (century.ordinal || !oneWord(century) || century.value < 10 || century.value > 99) return null;
  if (rest.length === 1 && !rest[0].ordinal && rest[0].value >= 10 && rest[0].value <= 99) {
    return `${century.value}${rest[0].value}`;
  }
  if (rest.length === 2 && rest[0].digits === '0' && rest[0].from === rest[0].to && rest[1].value <= 9) {
    return `${century.value}0${rest[1].value}`;
  }
  return null;
}

/** "three p m", "three thirty p m", "eleven oh five a m": an hour (and minutes) before a.m./p.m. */
function readTime(keys: readonly string[], groups: readonly NumberGroup[]): WordReplacement | null {
  const [hour, ...minuteGroups] = groups;
  if (hour.ordinal || hour.value < 1 || hour.value > 12 || minuteGroups.length > 2) return null;
  let minutes = 0;
  if (minuteGroups.length === 2) {
    if (minuteGroups[0].digits !== '0' || minuteGroups[1].value > 9) return null;
    minutes = minuteGroups[1].value;
  } else if (minuteGroups.length === 1) {
    if (minuteGroups[0].value < 10 || minuteGroups[0].value > 59 || minuteGroups[0].ordinal) return null;
    minutes = minuteGroups[0].value;
  }
  const last = groups[groups.length - 1];
  const meridiem = readMeridiem(keys, last.to + 1);
  if (!meridiem) return null;
  const clock =
    minuteGroups.length === 0 ? `${hour.value}` : `${hour.value}:${String(minutes).padStart(2, '0')}`;
  return { from: hour.from, to: meridiem.to, text: `${clock} ${meridiem.text}` };
}

function readMeridiem(keys: readonly string[], at: number): { to: number; text: string } | null {
  const one = keys[at]?.replace(/\./g, '');
  if (one === 'am' || one === 'pm') return { to: at, text: one.toUpperCase() };
  if ((one === 'a' || one === 'p') && keys[at + 1]?.replace(/\./g, '') === 'm') {
    return { to: at + 1, text: `${one.toUpperCase()}M` };
  }
  return null;
}

function formatGroup(keys: readonly string[], group: NumberGroup, isLast: boolean): WordReplacement | null {
  let to = group.to;
  let number = formatCardinal(group.value);
  let hasUnit = false;
  let decimal = false;
  if (isLast && !group.ordinal && keys[to + 1] === 'point') {
    const fraction = readDecimalDigits(keys, to + 2);
    if (fraction) {
      number = `${number}.${fraction.digits}`;
      to = fraction.to;
      decimal = true;
    }
  }
  if (group.ordinal) {
    const afterMonth = MONTH_NAMES.has(keys[group.from - 1] ?? '');
    if (group.from === group.to && group.value < 10 && !afterMonth) return null;
    return { from: group.from, to, text: `${group.value}${ordinalSuffix(group.value)}` };
  }
  if (isLast) {
    const unit = readUnit(keys, to + 1, number);
    if (unit) {
      to = unit.to;
      number = unit.text;
      hasUnit = true;
    }
  }
  if (!hasUnit && !decimal && group.from === group.to && group.value < 10) return null;
  return { from: group.from, to, text: number };
}

/** "percent", "per cent", "dollars", "dollars and fifty cents", "euros", "pounds" after a number. */
function readUnit(keys: readonly string[], at: number, number: string): { to: number; text: string } | null {
  if (keys[at] === 'percent') return { to: at, text: `${number}%` };
  if (keys[at] === 'per' && keys[at + 1] === 'cent') return { to: at + 1, text: `${number}%` };
  const symbol = CURRENCIES[keys[at]];
  if (!symbol) return null;
  if (keys[at + 1] === 'and' && !number.includes('.')) {
    const cents = readNumberGroup(keys, at + 2);
    if (cents && !cents.ordinal && cents.value <= 99 && /^cents?$/.test(keys[cents.to + 1] ?? '')) {
      return { to: cents.to + 1, text: `${symbol}${number}.${String(cents.value).padStart(2, '0')}` };
    }
  }
  return { to: at, text: `${symbol}${number}` };
}

function readDecimalDigits(keys: readonly string[], at: number): { to: number; digits: string } | null {
  let digits = '';
  let index = at;
  while (index < keys.length) {
    const key = keys[index];
    const group = key === 'oh' ? null : readNumberGroup(keys, index);
    if (key === 'oh' || key === 'zero') digits += '0';
    else if (group && group.from === group.to && !group.ordinal && group.value <= 9) digits += group.digits;
    else break;
    index++;
  }
  return digits.length > 0 ? { to: index - 1, digits } : null;
}

/** Digits, with thousands separators from five digits on (a four-digit number reads better without). */
function formatCardinal(value: number): string {
  return value >= 10_000 ? value.toLocaleString('en-US') : String(value);
}

function ordinalSuffix(value: number): string {
  const lastTwo = value % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return 'th';
  return ['th', 'st', 'nd', 'rd'][value % 10] ?? 'th';
}
