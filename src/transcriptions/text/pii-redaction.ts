import type { TimeSpan, TranscriptWord } from '../../engine/engine.types';
import { findNumberRuns, MONTH_NAMES, runDigits } from './spoken-numbers';
import { applyReplacements, splitWord, wordKeys, type WordReplacement } from './transcript-words';

/** The entity types `redact_pii_policies` names (AssemblyAI's names for them). */
export const PII_POLICIES = [
  'email_address',
  'phone_number',
  'credit_card_number',
  'banking_information',
  'us_social_security_number',
  'date_of_birth',
  'number_sequence',
] as const;
export type PiiPolicy = (typeof PII_POLICIES)[number];

/** `entity_name`: the span reads "[PHONE_NUMBER]"; `hash`: each of its characters reads "#". */
export const PII_SUBSTITUTIONS = ['entity_name', 'hash'] as const;
export type PiiSubstitution = (typeof PII_SUBSTITUTIONS)[number];

/** An entity found in the words: its type and word indices (inclusive). */
export interface PiiSpan {
  policy: PiiPolicy;
  from: number;
  to: number;
}

export interface RedactionResult {
  words: TranscriptWord[];
  /** Where the redacted entities are said, in seconds (for the audio). */
  spans: TimeSpan[];
}

/**
 * Replaces the entities of `policies` in the words. Every type is looked for, whichever are asked for, so a
 * card number is never taken for a phone number: an earlier type in DETECTION_ORDER claims its words first.
 */
export function redactPii(
  words: readonly TranscriptWord[],
  policies: readonly PiiPolicy[],
  substitution: PiiSubstitution,
): RedactionResult {
  const wanted = new Set(policies);
  const spans = detectPii(wordKeys(words)).filter((span) => wanted.has(span.policy));
  const replacements: WordReplacement[] = [];
  const out = [...words];
  for (const span of spans) {
    if (substitution === 'entity_name') {
      replacements.push({ from: span.from, to: span.to, text: `[${span.policy.toUpperCase()}]` });
    } else {
      for (let index = span.from; index <= span.to; index++) out[index] = hashed(out[index]);
    }
  }
  return {
    words: substitution === 'entity_name' ? applyReplacements(words, replacements) : out,
    spans: spans.map((span) => ({ start: words[span.from].start, end: words[span.to].end })),
  };
}

function hashed(word: TranscriptWord): TranscriptWord {
  const { prefix, core, suffix } = splitWord(word.word);
  return { ...word, word: `${prefix}${'#'.repeat([...core].length)}${suffix}` };
}

/** A number said in words or written in digits, possibly over several words ("415" "555-1234"). */
interface DigitSequence {
  from: number;
  to: number;
  digits: string;
  /** The single word it was written as, when it was one ("123-45-6789"); null when spoken or split. */
  written: string | null;
}

const DIGIT_WORD = /^[+(]?\d[\d()./,-]*(st|nd|rd|th)?$/u;

/** Consecutive number words and digit-written words, joined into digit sequences. */
function digitSequences(keys: readonly string[]): DigitSequence[] {
  const runs = new Map(findNumberRuns(keys).map((run) => [run.from, run]));
  const sequences: DigitSequence[] = [];
  let index = 0;
  while (index < keys.length) {
    const run = runs.get(index);
    const piece = run
      ? { to: run.to, digits: runDigits(run), written: null }
      : DIGIT_WORD.test(keys[index])
        ? {
            to: index,
            digits: keys[index].replace(/(st|nd|rd|th)$/, '').replace(/\D/g, ''),
            written: keys[index],
          }
        : null;
    if (!piece) {
      index++;
      continue;
    }
    const previous = sequences.at(-1);
    if (previous && previous.to === index - 1) {
      previous.to = piece.to;
      previous.digits += piece.digits;
      previous.written = null;
    } else {
      sequences.push({ from: index, to: piece.to, digits: piece.digits, written: piece.written });
    }
    index = piece.to + 1;
  }
  return sequences;
}

type Detector = (
  keys: readonly string[],
  sequences: readonly DigitSequence[],
) => Array<Omit<PiiSpan, 'policy'>>;

/** The order in which types claim words: the more specific (checksummed, with context) first. */
const DETECTION_ORDER: ReadonlyArray<[PiiPolicy, Detector]> = [
  ['email_address', findEmails],
  ['banking_information', findIbans],
  ['credit_card_number', (_keys, sequences) => sequences.filter((s) => isCardNumber(s.digits))],
  ['us_social_security_number', findSocialSecurityNumbers],
  ['date_of_birth', findDatesOfBirth],
  ['banking_information', findAccountNumbers],
  [
    'phone_number',
    (_keys, sequences) => sequences.filter((s) => s.digits.length >= 7 && s.digits.length <= 15),
  ],
  ['number_sequence', (_keys, sequences) => sequences.filter((s) => s.digits.length >= 5)],
];

/** Every entity in the words (by their lower-cased cores), without overlaps, in word order. */
export function detectPii(keys: readonly string[]): PiiSpan[] {
  const sequences = digitSequences(keys);
  const claimed = new Set<number>();
  const spans: PiiSpan[] = [];
  for (const [policy, detect] of DETECTION_ORDER) {
    for (const found of detect(keys, sequences)) {
      const indices = Array.from({ length: found.to - found.from + 1 }, (_, offset) => found.from + offset);
      if (indices.some((index) => claimed.has(index))) continue;
      indices.forEach((index) => claimed.add(index));
      spans.push({ policy, from: found.from, to: found.to });
    }
  }
  return spans.sort((a, b) => a.from - b.from);
}

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function isCardNumber(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && /^[2-6]/.test(digits) && passesLuhn(digits);
}

/** ISO 13616: country letters, two check digits, up to 30 letters and digits; mod 97 of the rearranged = 1. */
export function isValidIban(candidate: string): boolean {
  const iban = candidate.toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = `${iban.slice(4)}${iban.slice(0, 4)}`;
  let remainder = 0;
  for (const char of rearranged) {
    const value = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/**
 * IBANs written ("DE89 3704 0044 0532 0130 00") or spelled ("d e eight nine three seven …"): from a word that
 * can start one, the longest stretch of letters and digits after it that passes the checksum.
 */
function findIbans(
  keys: readonly string[],
  sequences: readonly DigitSequence[],
): Array<Omit<PiiSpan, 'policy'>> {
  const sequenceAt = new Map(sequences.map((sequence) => [sequence.from, sequence]));
  const found: Array<Omit<PiiSpan, 'policy'>> = [];
  for (let start = 0; start < keys.length; start++) {
    if (!/^[a-z]/.test(keys[start] ?? '')) continue;
    let compact = '';
    let index = start;
    let best = -1;
    while (index < keys.length && compact.length <= 34) {
      const sequence = sequenceAt.get(index);
      let piece: string;
      let to = index;
      if (sequence) {
        piece = sequence.digits;
        to = sequence.to;
      } else if (
        /^[a-z]$/.test(keys[index]) ||
        (index === start && (/^[a-z]{2}$/.test(keys[index]) || /^[a-z]{2}\d[a-z0-9]*$/.test(keys[index])))
      ) {
        piece = keys[index];
      } else if (/\d/.test(keys[index]) && /^[a-z0-9]+$/.test(keys[index])) {
        piece = keys[index];
      } else if (compact.length === 4 && /^[a-z]{1,4}$/.test(keys[index])) {
        // A bank code in letters right after the check digits ("GB29 NWBK …").
        piece = keys[index];
      } else {
        break;
      }
      compact += piece;
      if (isValidIban(compact)) best = to;
      index = to + 1;
    }
    if (best >= 0) {
      found.push({ from: start, to: best });
      start = best;
    }
  }
  return found;
}

const SOCIAL_SECURITY_CONTEXT = new Set(['social', 'security', 'ssn']);

/** 123-45-6789 as written, or nine digits said after "social security" / "SSN"; never 000, 666 or 9xx areas. */
function findSocialSecurityNumbers(
  keys: readonly string[],
  sequences: readonly DigitSequence[],
): Array<Omit<PiiSpan, 'policy'>> {
  return sequences.filter((sequence) => {
    const digits = sequence.digits;
    if (digits.length !== 9 || /^(000|666|9)/.test(digits) || digits.slice(3, 5) === '00') return false;
    if (digits.slice(5) === '0000') return false;
    if (sequence.written && /^\d{3}-\d{2}-\d{4}$/.test(sequence.written)) return true;
    return keys
      .slice(Math.max(0, sequence.from - 6), sequence.from)
      .some((key) => SOCIAL_SECURITY_CONTEXT.has(key));
  });
}

const ACCOUNT_CONTEXT = new Set(['account', 'routing', 'iban', 'sort']);

/** Six to seventeen digits said after "account", "routing", "IBAN" or "sort" (code). */
function findAccountNumbers(
  keys: readonly string[],
  sequences: readonly DigitSequence[],
): Array<Omit<PiiSpan, 'policy'>> {
  return sequences.filter(
    (sequence) =>
      sequence.digits.length >= 6 &&
      sequence.digits.length <= 17 &&
      keys.slice(Math.max(0, sequence.from - 4), sequence.from).some((key) => ACCOUNT_CONTEXT.has(key)),
  );
}

const BIRTH_CONTEXT = new Set(['born', 'birth', 'birthday', 'birthdate', 'dob']);
const NUMERIC_DATE = /^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}$/u;

/**
 * A date said within six words after "born", "birth", "birthday" or "DOB": "march third nineteen eighty
 * five", "the fifth of may two thousand", "3/14/1985", "14 March 1985".
 */
function findDatesOfBirth(
  keys: readonly string[],
  sequences: readonly DigitSequence[],
): Array<Omit<PiiSpan, 'policy'>> {
  const sequenceAt = new Map(sequences.map((sequence) => [sequence.from, sequence]));
  const found: Array<Omit<PiiSpan, 'policy'>> = [];
  keys.forEach((key, contextIndex) => {
    if (!BIRTH_CONTEXT.has(key)) return;
    for (let start = contextIndex + 1; start <= contextIndex + 6 && start < keys.length; start++) {
      const end = dateEndingAt(keys, start, sequenceAt);
      if (end !== null) {
        found.push({ from: start, to: end });
        return;
      }
    }
  });
  return found;
}

function dateEndingAt(
  keys: readonly string[],
  start: number,
  sequenceAt: ReadonlyMap<number, DigitSequence>,
): number | null {
  if (NUMERIC_DATE.test(keys[start])) return start;
  const afterNumbers = (index: number): number => {
    let end = index - 1;
    let next = sequenceAt.get(index);
    // A day and a year can be two sequences ("third" / "nineteen eighty five"): take up to two.
    for (let taken = 0; next && taken < 2; taken++) {
      end = next.to;
      next = sequenceAt.get(end + 1);
    }
    return end;
  };
  const year = sequenceAt.get(start);
  // A year alone ("born in nineteen eighty five") is a date of birth too.
  if (year && /^(19|20)\d\d$/.test(year.digits)) return year.to;
  if (MONTH_NAMES.has(keys[start])) {
    const end = afterNumbers(start + 1);
    return end > start ? end : null;
  }
  const day = sequenceAt.get(start);
  if (!day) return null;
  const monthAt = keys[day.to + 1] === 'of' ? day.to + 2 : day.to + 1;
  if (!MONTH_NAMES.has(keys[monthAt])) return null;
  return Math.max(monthAt, afterNumbers(monthAt + 1));
}

/** A top-level domain as said: two to six letters ("com", "de", "shop"). */
const TOP_LEVEL_DOMAIN = /^[a-z]{2,6}$/;
const EMAIL_LOCAL_PART = /^[\p{L}\p{N}._%+-]+$/u;
const EMAIL_DOMAIN = /^[\p{L}\p{N}-]+\.[\p{L}\p{N}.-]*[\p{L}\p{N}]$/u;

/** "jane.doe@example.com" (one word as written; no nested quantifiers, so no catastrophic backtracking). */
function isWrittenEmail(key: string): boolean {
  const [local, domain, ...rest] = key.split('@');
  return (
    rest.length === 0 &&
    domain !== undefined &&
    EMAIL_LOCAL_PART.test(local) &&
    EMAIL_DOMAIN.test(domain) &&
    !domain.includes('..')
  );
}
const LOCAL_PART_JOINERS = new Set(['dot', 'underscore', 'dash', 'hyphen']);

/** Addresses written ("jane.doe@example.com") or said ("jane dot doe at example dot com"). */
function findEmails(keys: readonly string[]): Array<Omit<PiiSpan, 'policy'>> {
  const found: Array<Omit<PiiSpan, 'policy'>> = [];
  keys.forEach((key, index) => {
    if (isWrittenEmail(key)) {
      found.push({ from: index, to: index });
      return;
    }
    if (key !== 'at' || index === 0) return;
    // The domain: a name, then one "dot name" or more, ending in a known top-level domain.
    let end = index + 1;
    if (!/^[\p{L}\p{N}-]+$/u.test(keys[end] ?? '')) return;
    let lastLabel = -1;
    while (keys[end + 1] === 'dot' && /^[\p{L}\p{N}-]+$/u.test(keys[end + 2] ?? '')) {
      end += 2;
      if (TOP_LEVEL_DOMAIN.test(keys[end])) lastLabel = end;
    }
    // "me at jane dot doe at example dot com": the address is the one before the last "at".
    if (lastLabel < 0 || keys[lastLabel + 1] === 'at') return;
    let start = index - 1;
    while (start >= 2 && LOCAL_PART_JOINERS.has(keys[start - 1])) start -= 2;
    found.push({ from: start, to: lastLabel });
  });
  return found;
}
