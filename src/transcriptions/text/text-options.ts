import { ProblemException } from '../../common/problem/problem.exception';
import { unstorableTextReason } from '../../common/validation/stored-text';
import { MAX_VOCABULARY_WORD_LENGTH } from '../../vocabularies/vocabulary-word';
import type { CustomSpelling } from './custom-spelling';
import { PII_POLICIES, PII_SUBSTITUTIONS, type PiiPolicy, type PiiSubstitution } from './pii-redaction';

/** What `redact_pii` and its companions ask for. */
export interface PiiRedactionOptions {
  policies: PiiPolicy[];
  substitution: PiiSubstitution;
  /** The stored audio is silenced where a redacted entity is said. */
  audio: boolean;
}

/** The text passes a job asks for, as stored on it (`formatNumbers` resolved from the tier's default). */
export interface TranscriptTextOptions {
  customSpelling: CustomSpelling[];
  formatNumbers: boolean;
  filterProfanity: boolean;
  /** null: nothing is redacted. */
  redactPii: PiiRedactionOptions | null;
}

/** As read from an upload: `formatNumbers` null when the field is absent (the tier's default applies). */
export type RequestedTextOptions = Omit<TranscriptTextOptions, 'formatNumbers'> & {
  formatNumbers: boolean | null;
};

export const TEXT_OPTION_FIELDS = [
  'custom_spelling',
  'format_numbers',
  'filter_profanity',
  'redact_pii',
  'redact_pii_policies',
  'redact_pii_sub',
  'redact_pii_audio',
] as const;

export const MAX_CUSTOM_SPELLINGS = 100;
/** A `from` entry is a word or a short phrase. */
export const MAX_SPELLING_SOURCES = 10;

/** Reads the text-pass fields of an upload (multipart text or the JSON body's values as text). */
export function parseTextOptions(fields: Readonly<Record<string, string | undefined>>): RequestedTextOptions {
  const redact = parseBoolean('redact_pii', fields.redact_pii) ?? false;
  const policiesGiven = present(fields.redact_pii_policies);
  const substitutionGiven = present(fields.redact_pii_sub);
  const audio = parseBoolean('redact_pii_audio', fields.redact_pii_audio) ?? false;
  if (!redact) {
    for (const [name, given] of [
      ['redact_pii_policies', policiesGiven],
      ['redact_pii_sub', substitutionGiven],
      ['redact_pii_audio', audio],
    ] as const) {
      if (given) throw ProblemException.field(name, `${name} needs redact_pii=true`);
    }
  }
  return {
    customSpelling: parseCustomSpelling(fields.custom_spelling),
    formatNumbers: parseBoolean('format_numbers', fields.format_numbers),
    filterProfanity: parseBoolean('filter_profanity', fields.filter_profanity) ?? false,
    redactPii: redact
      ? {
          policies: parsePolicies(fields.redact_pii_policies),
          substitution: parseSubstitution(fields.redact_pii_sub),
          audio,
        }
      : null,
  };
}

function present(raw: string | undefined): raw is string {
  return raw !== undefined && raw.trim() !== '';
}

/** `true` or `false` (any case; a JSON body's boolean arrives as its text); null when absent or empty. */
export function parseBoolean(name: string, raw: string | undefined): boolean | null {
  if (!present(raw)) return null;
  const value = raw.trim().toLowerCase();
  if (value !== 'true' && value !== 'false')
    throw ProblemException.field(name, `${name} must be true or false`);
  return value === 'true';
}

/** A JSON array of policy names, or the names separated by commas (as `vocabulary` is read). */
function parsePolicies(raw: string | undefined): PiiPolicy[] {
  const field = 'redact_pii_policies';
  if (!present(raw)) throw ProblemException.field(field, `${field} is required with redact_pii=true`);
  let names: unknown;
  if (raw.trim().startsWith('[')) {
    try {
      names = JSON.parse(raw);
    } catch {
      throw ProblemException.field(field, `${field} is not a valid JSON array`);
    }
  } else {
    names = raw.split(',').map((name) => name.trim());
  }
  if (!Array.isArray(names) || names.length === 0 || !names.every((name) => typeof name === 'string')) {
    throw ProblemException.field(field, `${field} must be a non-empty array of policy names`);
  }
  const unknown = names.filter((name) => !(PII_POLICIES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw ProblemException.field(
      field,
      `unknown policy ${JSON.stringify(unknown[0]).slice(0, 60)}; the policies are ${PII_POLICIES.join(', ')}`,
    );
  }
  return [...new Set(names as PiiPolicy[])];
}

function parseSubstitution(raw: string | undefined): PiiSubstitution {
  if (!present(raw)) return 'entity_name';
  const value = raw.trim();
  if (!(PII_SUBSTITUTIONS as readonly string[]).includes(value)) {
    throw ProblemException.field(
      'redact_pii_sub',
      `redact_pii_sub must be one of ${PII_SUBSTITUTIONS.join(', ')}`,
    );
  }
  return value as PiiSubstitution;
}

/** A JSON array of at most 100 `{"from": ["…"], "to": "…"}`, each text 1 to 100 characters. */
function parseCustomSpelling(raw: string | undefined): CustomSpelling[] {
  const field = 'custom_spelling';
  if (!present(raw)) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw ProblemException.field(field, `${field} is not valid JSON`);
  }
  if (!Array.isArray(value)) throw ProblemException.field(field, `${field} must be a JSON array`);
  if (value.length > MAX_CUSTOM_SPELLINGS) {
    throw ProblemException.field(field, `${field} has more than ${MAX_CUSTOM_SPELLINGS} entries`);
  }
  return value.map((entry: unknown, index) => {
    const where = `${field}[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw ProblemException.field(field, `${where} must be an object with from and to`);
    }
    const { from, to, ...rest } = entry as Record<string, unknown>;
    if (Object.keys(rest).length > 0) {
      throw ProblemException.field(field, `${where} has fields other than from and to`);
    }
    if (!Array.isArray(from) || from.length === 0 || from.length > MAX_SPELLING_SOURCES) {
      throw ProblemException.field(
        field,
        `${where}.from must be an array of 1 to ${MAX_SPELLING_SOURCES} strings`,
      );
    }
    return {
      from: from.map((text: unknown) => spellingText(`${where}.from`, text)),
      to: spellingText(`${where}.to`, to),
    };
  });
}

function spellingText(where: string, text: unknown): string {
  if (typeof text !== 'string') throw ProblemException.field('custom_spelling', `${where} must be a string`);
  const trimmed = text.trim();
  if (trimmed.length === 0 || [...trimmed].length > MAX_VOCABULARY_WORD_LENGTH) {
    throw ProblemException.field(
      'custom_spelling',
      `${where} must be 1 to ${MAX_VOCABULARY_WORD_LENGTH} characters`,
    );
  }
  const unstorable = unstorableTextReason(trimmed);
  if (unstorable) throw ProblemException.field('custom_spelling', `${where} ${unstorable}`);
  return trimmed;
}
