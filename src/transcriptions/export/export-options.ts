import { ProblemException } from '../../common/problem/problem.exception';
import type { ExportFormat } from './export.types';

/** Caption layout of srt and vtt. */
export interface CaptionExportOptions {
  maxCharsPerLine: number;
  maxLines: number;
  maxCueSeconds: number;
  speakerLabels: boolean;
}

/** Layout of the paragraph formats, txt and docx. */
export interface TranscriptExportOptions {
  timestamps: boolean;
  speakerLabels: boolean;
}

export interface ExportOptions {
  captions: CaptionExportOptions;
  transcript: TranscriptExportOptions;
}

/** Defaults reproduce the exports as they were before the controls existed. */
export const DEFAULT_EXPORT_OPTIONS: ExportOptions = {
  captions: { maxCharsPerLine: 42, maxLines: 2, maxCueSeconds: 7, speakerLabels: true },
  transcript: { timestamps: true, speakerLabels: true },
};

/**
 * Ranges. 20 is the narrowest line that still holds a "Speaker 10: " label and a word next to it; 200 is
 * far past any player's line; 3 lines is the broadcast maximum; a cue shorter than 1 s cannot be read and
 * one longer than 30 s is no longer a caption. Seconds may be fractional (whole milliseconds are used).
 */
export const EXPORT_OPTION_RANGES = {
  max_chars_per_line: { min: 20, max: 200, integer: true },
  max_lines: { min: 1, max: 3, integer: true },
  max_cue_seconds: { min: 1, max: 30, integer: false },
} as const;

type NumericOption = keyof typeof EXPORT_OPTION_RANGES;

/** Which query parameters each format reads; the others are ignored for that format, like unknown ones. */
export const EXPORT_OPTIONS_BY_FORMAT: Readonly<Record<ExportFormat, readonly string[]>> = {
  srt: ['max_chars_per_line', 'max_lines', 'max_cue_seconds', 'speaker_labels'],
  vtt: ['max_chars_per_line', 'max_lines', 'max_cue_seconds', 'speaker_labels'],
  txt: ['timestamps', 'speaker_labels'],
  docx: ['timestamps', 'speaker_labels'],
  json: [],
};

type Query = Readonly<Record<string, unknown>>;
type FieldErrors = Record<string, string[]>;

function single(query: Query, name: string, errors: FieldErrors): string | undefined {
  const value = query[name];
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string') {
    errors[name] = [`${name} must be given once, as a single value.`];
    return undefined;
  }
  return value;
}

// Plain decimal notation, at most millisecond precision: no exponent, hex, sign or whitespace.
const DIGITS = /^\d+$/u;
function isPlainDecimal(raw: string): boolean {
  const [whole, fraction, ...rest] = raw.split('.');
  return (
    rest.length === 0 &&
    DIGITS.test(whole) &&
    whole.length <= 6 &&
    (fraction === undefined || (DIGITS.test(fraction) && fraction.length <= 3))
  );
}

function numberOption(query: Query, name: NumericOption, fallback: number, errors: FieldErrors): number {
  const raw = single(query, name, errors);
  if (raw === undefined) {
    return fallback;
  }
  const { min, max, integer } = EXPORT_OPTION_RANGES[name];
  const value = isPlainDecimal(raw) ? Number(raw) : Number.NaN;
  if (Number.isNaN(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    errors[name] = [`${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}.`];
    return fallback;
  }
  return value;
}

function booleanOption(query: Query, name: string, fallback: boolean, errors: FieldErrors): boolean {
  const raw = single(query, name, errors);
  if (raw === undefined) {
    return fallback;
  }
  if (raw !== 'true' && raw !== 'false') {
    errors[name] = [`${name} must be true or false.`];
    return fallback;
  }
  return raw === 'true';
}

/**
 * Reads the layout controls that apply to `format` from the raw query. Parameters the format does not use
 * are ignored without being checked (as unknown parameters are); a malformed, repeated or out-of-range
 * control the format does use is 422 validation naming every such field.
 */
export function parseExportOptions(format: ExportFormat, query: Query): ExportOptions {
  const applicable = new Set(EXPORT_OPTIONS_BY_FORMAT[format]);
  const relevant: Query = Object.fromEntries(Object.entries(query).filter(([name]) => applicable.has(name)));
  const errors: FieldErrors = {};
  const captions = DEFAULT_EXPORT_OPTIONS.captions;
  const transcript = DEFAULT_EXPORT_OPTIONS.transcript;
  const speakerLabels = booleanOption(relevant, 'speaker_labels', true, errors);
  const options: ExportOptions = {
    captions: {
      maxCharsPerLine: numberOption(relevant, 'max_chars_per_line', captions.maxCharsPerLine, errors),
      maxLines: numberOption(relevant, 'max_lines', captions.maxLines, errors),
      maxCueSeconds: numberOption(relevant, 'max_cue_seconds', captions.maxCueSeconds, errors),
      speakerLabels,
    },
    transcript: {
      timestamps: booleanOption(relevant, 'timestamps', transcript.timestamps, errors),
      speakerLabels,
    },
  };
  const invalid = Object.keys(errors);
  if (invalid.length > 0) {
    throw ProblemException.validation(
      { fieldErrors: errors },
      `Invalid export option${invalid.length > 1 ? 's' : ''}: ${invalid.join(', ')}.`,
    );
  }
  return options;
}
