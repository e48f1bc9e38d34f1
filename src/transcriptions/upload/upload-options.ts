import { isUuid } from '../../common/http/resource-id.pipe';
import { ProblemException } from '../../common/problem/problem.exception';
import { codePointLength, unstorableTextReason } from '../../common/validation/stored-text';
import type { ModelTier } from '../../common/model-tier-catalogue';
import type { SpeakerHints } from '../../engine/engine.types';
import { LANGUAGE_CODES } from '../../languages/languages';
import { MAX_VOCABULARY_WORD_LENGTH } from '../../vocabularies/vocabulary-word';
import { type CompatRequest, type JobCallback, MODEL_TIERS } from '../transcription.entity';
import {
  parseBoolean,
  parseTextOptions,
  type RequestedTextOptions,
  TEXT_OPTION_FIELDS,
} from '../text/text-options';

export interface UploadOptions {
  model: ModelTier;
  /** ISO 639-1 code or 'auto'. */
  language: string;
  inlineVocabulary: string[];
  vocabularyId: string | null;
  /** A free-text initial prompt for Whisper-family recognisers: set by the OpenAI-compatible route only. */
  prompt: string | null;
  speakers: SpeakerHints;
  /** The caller's own labels, stored and echoed back (detail, webhooks); `{}` when none. */
  metadata: Record<string, string>;
  /** Custom spelling, number formatting, the profanity filter and PII redaction (text/text-options.ts). */
  text: RequestedTextOptions;
  /** Each channel recognised on its own, its words labelled with the channel (no diarization). */
  multichannel: boolean;
  /** Set by a compatible API's route: kept on the job (Transcription.compatRequest). */
  compatRequest?: CompatRequest;
  /** Set by a compatible API's route: the per-job callback, checked and sealed (JobCallbacks.prepare). */
  callback?: JobCallback;
}

export const MAX_VOCABULARY_WORDS = 500;
/**
 * The longest `prompt` kept on a job (OpenAI-compatible route) or a realtime session: Unicode code points. The
 * recogniser reads at most its end (the tier's prompt budget).
 */
export const MAX_PROMPT_CHARS = 4000;
export const MAX_METADATA_KEYS = 16;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_VALUE_LENGTH = 500;
/** The most channels a multichannel upload may have (8: 7.1 surround, an 8-line call recorder). */
export const MAX_CHANNELS = 8;

const KNOWN_FIELDS = new Set([
  'model',
  'language',
  'vocabulary',
  'vocabulary_id',
  'vocabularyId',
  'num_speakers',
  'min_speakers',
  'max_speakers',
  'metadata',
  ...TEXT_OPTION_FIELDS,
  'multichannel',
]);

/** Reads and checks the text fields of an upload; each failure is the problem openapi.yaml names for it. */
export function parseUploadOptions(fields: Record<string, string>): UploadOptions {
  const unknown = Object.keys(fields).filter((name) => !KNOWN_FIELDS.has(name));
  if (unknown.length > 0) {
    throw ProblemException.validation({
      fieldErrors: Object.fromEntries(unknown.map((name) => [name, [`${name} is not a known field`]])),
    });
  }
  for (const [name, value] of Object.entries(fields)) {
    const unstorable = unstorableTextReason(value);
    if (unstorable) throw ProblemException.field(name, `${name} ${unstorable}`);
  }
  return {
    model: parseModel(fields.model),
    language: parseLanguage(fields.language),
    inlineVocabulary: parseVocabulary(fields.vocabulary),
    vocabularyId: parseVocabularyId(fields.vocabulary_id, fields.vocabularyId),
    prompt: null,
    speakers: parseSpeakerHints(fields),
    metadata: parseMetadata(fields.metadata),
    text: parseTextOptions(fields),
    multichannel: parseBoolean('multichannel', fields.multichannel) ?? false,
  };
}

/**
 * A free-text initial prompt, checked as every stored text is: no NUL or lone surrogate (PostgreSQL cannot store
 * them), at most MAX_PROMPT_CHARS. Blank is no prompt. The one check of `prompt`, wherever it is given (the
 * OpenAI-compatible route, `session.update`, a realtime client secret); the refusal names the field `prompt`.
 */
export function parsePrompt(raw: string | undefined | null): string | null {
  if (raw === undefined || raw === null || raw.trim() === '') return null;
  const unstorable = unstorableTextReason(raw);
  if (unstorable) throw ProblemException.field('prompt', `prompt ${unstorable}.`);
  if (codePointLength(raw) > MAX_PROMPT_CHARS) {
    throw ProblemException.field('prompt', `prompt must be at most ${MAX_PROMPT_CHARS} characters.`);
  }
  return raw;
}

function parseModel(raw: string | undefined): ModelTier {
  const value = raw?.trim() || 'standard';
  if (!(MODEL_TIERS as readonly string[]).includes(value)) {
    throw new ProblemException(
      'invalid-model',
      `model must be one of ${MODEL_TIERS.join(', ')}; got ${JSON.stringify(raw)}.`,
    );
  }
  return value as ModelTier;
}

function parseLanguage(raw: string | undefined): string {
  const value = raw?.trim().toLowerCase() || 'auto';
  if (value !== 'auto' && !LANGUAGE_CODES.has(value)) {
    throw ProblemException.field(
      'language',
      'language must be `auto` or one of the codes of GET /v1/languages',
    );
  }
  return value;
}

/** A JSON array of strings, or a comma-separated string. */
function parseVocabulary(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  let words: unknown;
  if (raw.trim().startsWith('[')) {
    try {
      words = JSON.parse(raw);
    } catch {
      throw ProblemException.field('vocabulary', 'vocabulary is not a valid JSON array');
    }
    if (!Array.isArray(words) || !words.every((word) => typeof word === 'string')) {
      throw ProblemException.field('vocabulary', 'vocabulary must be an array of strings');
    }
  } else {
    words = raw.split(',');
  }
  const cleaned = (words as string[]).map((word) => word.trim()).filter((word) => word.length > 0);
  // `["\ud800"]` parses to a lone surrogate, which the jsonb column refuses (a 500 before).
  const unstorable = cleaned.map(unstorableTextReason).find((reason) => reason !== null);
  if (unstorable) throw ProblemException.field('vocabulary', `each vocabulary word ${unstorable}`);
  if (cleaned.some((word) => [...word].length > MAX_VOCABULARY_WORD_LENGTH)) {
    throw ProblemException.field(
      'vocabulary',
      `each vocabulary word must be at most ${MAX_VOCABULARY_WORD_LENGTH} characters`,
    );
  }
  if (cleaned.length > MAX_VOCABULARY_WORDS) {
    throw ProblemException.field('vocabulary', `vocabulary has more than ${MAX_VOCABULARY_WORDS} words`);
  }
  return cleaned;
}

/** A JSON object of at most 16 string values; keys 1–40 and values 0–500 characters (Unicode code points). */
function parseMetadata(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw ProblemException.field('metadata', 'metadata is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ProblemException.field('metadata', 'metadata must be a JSON object');
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_KEYS) {
    throw ProblemException.field('metadata', `metadata has more than ${MAX_METADATA_KEYS} keys`);
  }
  for (const [key, entry] of entries) {
    const keyLength = codePointLength(key);
    if (keyLength === 0 || keyLength > MAX_METADATA_KEY_LENGTH) {
      throw ProblemException.field(
        'metadata',
        `each metadata key must be 1 to ${MAX_METADATA_KEY_LENGTH} characters`,
      );
    }
    if (typeof entry !== 'string') {
      throw ProblemException.field('metadata', `metadata value of ${JSON.stringify(key)} must be a string`);
    }
    if (codePointLength(entry) > MAX_METADATA_VALUE_LENGTH) {
      throw ProblemException.field(
        'metadata',
        `each metadata value must be at most ${MAX_METADATA_VALUE_LENGTH} characters`,
      );
    }
    // `{"a":"\ud800"}` parses to a lone surrogate, which the jsonb column refuses.
    const unstorable = unstorableTextReason(key) ?? unstorableTextReason(entry);
    if (unstorable) throw ProblemException.field('metadata', `each metadata key and value ${unstorable}`);
  }
  return Object.fromEntries(entries);
}

/**
 * The channels a job recognises one by one, from the upload's probed channel count: null without
 * `multichannel` (the channels are mixed to mono and diarized). A mono file with `multichannel` is one
 * channel, CHANNEL_1. More than MAX_CHANNELS, or a count ffprobe could not state, is refused.
 */
export function recognisedChannels(multichannel: boolean, probedChannels: number | null): number | null {
  if (!multichannel) return null;
  if (probedChannels === null || probedChannels < 1) {
    throw ProblemException.field('multichannel', 'the number of audio channels could not be determined');
  }
  if (probedChannels > MAX_CHANNELS) {
    throw ProblemException.field(
      'multichannel',
      `multichannel takes at most ${MAX_CHANNELS} channels; the audio has ${probedChannels}`,
    );
  }
  return probedChannels;
}

function parseVocabularyId(formal: string | undefined, alias: string | undefined): string | null {
  const values = [formal, alias].map((value) => value?.trim()).filter((value): value is string => !!value);
  if (values.length === 0) return null;
  if (values.length === 2 && values[0].toLowerCase() !== values[1].toLowerCase()) {
    throw ProblemException.field(
      'vocabulary_id',
      'vocabulary_id and vocabularyId name different vocabularies',
    );
  }
  if (!isUuid(values[0])) throw ProblemException.field('vocabulary_id', 'vocabulary_id must be a UUID');
  return values[0].toLowerCase();
}

function parseSpeakerCount(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 50) {
    throw new ProblemException('invalid-speaker-hint', `${name} must be a whole number from 1 to 50.`);
  }
  return value;
}

function parseSpeakerHints(fields: Record<string, string>): SpeakerHints {
  const exact = parseSpeakerCount('num_speakers', fields.num_speakers);
  const min = parseSpeakerCount('min_speakers', fields.min_speakers);
  const max = parseSpeakerCount('max_speakers', fields.max_speakers);
  if (exact !== undefined) {
    if (min !== undefined || max !== undefined) {
      throw new ProblemException(
        'invalid-speaker-hint',
        'num_speakers cannot be combined with min_speakers/max_speakers.',
      );
    }
    return { exact };
  }
  if (min === undefined && max === undefined) return {};
  if (min === undefined || max === undefined) {
    throw new ProblemException(
      'invalid-speaker-hint',
      'min_speakers and max_speakers must be sent together.',
    );
  }
  if (min > max)
    throw new ProblemException('invalid-speaker-hint', 'min_speakers must not exceed max_speakers.');
  return { min, max };
}

/** Saved words first, then inline ones, de-duplicated case-insensitively (documented decision). */
export function combineVocabulary(saved: string[], inline: string[]): string[] {
  const seen = new Set<string>();
  const combined: string[] = [];
  for (const word of [...saved, ...inline]) {
    const key = word.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      combined.push(word);
    }
  }
  if (combined.length > MAX_VOCABULARY_WORDS) {
    throw ProblemException.field(
      'vocabulary',
      `saved and inline vocabulary together exceed ${MAX_VOCABULARY_WORDS} words`,
    );
  }
  return combined;
}
