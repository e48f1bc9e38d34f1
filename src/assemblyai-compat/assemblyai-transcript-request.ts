import { MODEL_TIERS, type ModelTier } from '../common/model-tier-catalogue';
import { ProblemException } from '../common/problem/problem.exception';
import { primaryLanguageSubtag } from '../languages/languages';
import { parseUploadOptions, type UploadOptions } from '../transcriptions/upload/upload-options';

/** The answer options of an AssemblyAI transcript, as asked (kept on the job: Transcription.compatRequest). */
export interface AssemblyAiAnswerOptions {
  speech_model: string | null;
  language_code: string;
  language_detection: boolean;
  punctuate: boolean;
  format_text: boolean;
  speaker_labels: boolean;
  speakers_expected: number | null;
  multichannel: boolean;
  word_boost: string[];
  boost_param: string | null;
  filter_profanity: boolean;
  redact_pii: boolean;
  redact_pii_audio: boolean;
  redact_pii_policies: string[] | null;
  redact_pii_sub: 'entity_name' | 'hash' | null;
  custom_spelling: unknown[] | null;
}

/**
 * AssemblyAI's speech models served by our tiers (docs/compatibility.md): `nano` by standard, `best` and
 * `universal` by premium, `slam-1` by premium_jade; a tier's name is itself. No model: the standard tier.
 */
const SPEECH_MODELS: Readonly<Record<string, ModelTier>> = {
  nano: 'standard',
  best: 'premium',
  universal: 'premium',
  'slam-1': 'premium_jade',
};

/** Features this server cannot honour: asked for (true, or any value), the request is refused naming them. */
const NOT_AVAILABLE: Readonly<Record<string, string>> = {
  audio_start_from: 'transcribing part of a file is not available',
  audio_end_at: 'transcribing part of a file is not available',
  auto_chapters: 'chapters are not available',
  auto_highlights: 'key phrases are not available',
  content_safety: 'content moderation is not available',
  iab_categories: 'topic detection is not available',
  sentiment_analysis: 'sentiment analysis is not available',
  entity_detection: 'entity detection is not available',
  summarization: 'summaries are not available',
  disfluencies: 'disfluencies are not available',
  speaker_options: 'speaker options are not available; use speakers_expected',
  translation: 'translation is not available',
  speech_understanding: 'speech understanding is not available',
};

const field = (name: string, reason: string): ProblemException =>
  ProblemException.field(name, `${name} ${reason}`);

/** A text field of the JSON body, or null when absent, empty or JSON null. */
function textOf(raw: string | undefined): string | null {
  const value = raw?.trim();
  return value === undefined || value === '' || value === 'null' ? null : value;
}

/**
 * AssemblyAI's `webhook_url` with its optional `webhook_auth_header_name` and `webhook_auth_header_value` (both or
 * neither); null without a URL. The URL and the header are checked by JobCallbacks.prepare (the webhook target
 * policy, the header rules).
 */
export function readAssemblyAiWebhook(
  fields: Record<string, string>,
): { url: string; authHeader: { name: string; value: string } | null } | null {
  const url = textOf(fields.webhook_url);
  const name = textOf(fields.webhook_auth_header_name);
  // The value as sent (not trimmed): it is a secret compared by the receiver.
  const value = textOf(fields.webhook_auth_header_value) === null ? null : fields.webhook_auth_header_value;
  if (url === null) {
    if (name !== null || value !== null)
      throw field('webhook_auth_header_name', 'and webhook_auth_header_value need a webhook_url');
    return null;
  }
  if ((name === null) !== (value === null)) {
    throw field(
      name === null ? 'webhook_auth_header_name' : 'webhook_auth_header_value',
      'must be given with its pair (webhook_auth_header_name and webhook_auth_header_value go together)',
    );
  }
  return { url, authHeader: name !== null && value !== null ? { name, value } : null };
}

/** Reads the JSON body of POST /v2/transcript (its values as text, as the intake reads JSON). */
export function readAssemblyAiTranscriptRequest(
  fields: Record<string, string>,
  audioUrl: string,
): { options: UploadOptions; asked: AssemblyAiAnswerOptions } {
  for (const [name, reason] of Object.entries(NOT_AVAILABLE)) {
    const value = fields[name]?.trim().toLowerCase();
    if (value !== undefined && value !== '' && value !== 'false' && value !== 'null') {
      throw field(name, `is not honoured: ${reason}`);
    }
  }
  const flag = (name: string, fallback: boolean): boolean => {
    const raw = fields[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '' || raw === 'null') return fallback;
    if (raw !== 'true' && raw !== 'false') throw field(name, 'must be true or false');
    return raw === 'true';
  };
  const speechModel = readSpeechModel(fields.speech_model, fields.speech_models);
  const languageDetection = flag('language_detection', false);
  const languageCode = fields.language_code?.trim() || 'en_us';
  const speakersExpected = readSpeakers(fields.speakers_expected);
  const speakerLabels = flag('speaker_labels', false) || speakersExpected !== null;
  const wordBoost = readStringList('word_boost', fields.word_boost);
  const boostParam = fields.boost_param?.trim() || null;
  if (boostParam !== null && !['low', 'default', 'high'].includes(boostParam)) {
    throw field('boost_param', 'must be low, default or high');
  }
  const redact = flag('redact_pii', false);
  const asked: AssemblyAiAnswerOptions = {
    speech_model: speechModel.name,
    language_code: languageCode,
    language_detection: languageDetection,
    punctuate: flag('punctuate', true),
    format_text: flag('format_text', true),
    speaker_labels: speakerLabels,
    speakers_expected: speakersExpected,
    multichannel: flag('multichannel', false),
    word_boost: wordBoost,
    boost_param: boostParam,
    filter_profanity: flag('filter_profanity', false),
    redact_pii: redact,
    redact_pii_audio: flag('redact_pii_audio', false),
    redact_pii_policies: redact ? readStringList('redact_pii_policies', fields.redact_pii_policies) : null,
    redact_pii_sub: redact ? readSubstitution(fields.redact_pii_sub) : null,
    custom_spelling: null,
  };
  const options = parseUploadOptions({
    model: speechModel.tier,
    language: languageDetection ? 'auto' : primaryLanguageSubtag(languageCode),
    multichannel: String(asked.multichannel),
    ...(wordBoost.length > 0 ? { vocabulary: JSON.stringify(wordBoost) } : {}),
    ...(speakersExpected !== null ? { num_speakers: String(speakersExpected) } : {}),
    ...(asked.format_text ? {} : { format_numbers: 'false' }),
    filter_profanity: String(asked.filter_profanity),
    ...(fields.custom_spelling ? { custom_spelling: fields.custom_spelling } : {}),
    ...(redact
      ? {
          redact_pii: 'true',
          redact_pii_policies: JSON.stringify(asked.redact_pii_policies ?? []),
          redact_pii_sub: asked.redact_pii_sub ?? 'hash',
          redact_pii_audio: String(asked.redact_pii_audio),
        }
      : {}),
  });
  // As checked by the native rules (parseUploadOptions), in AssemblyAI's own shape (`from`, `to`).
  if (fields.custom_spelling) asked.custom_spelling = options.text.customSpelling;
  return {
    options: { ...options, compatRequest: { api: 'assemblyai', audioUrl, options: { ...asked } } },
    asked,
  };
}

function readSpeechModel(
  single: string | undefined,
  list: string | undefined,
): { name: string | null; tier: ModelTier } {
  let name = single?.trim() || null;
  if (name === null && list?.trim()) {
    const models = readStringList('speech_models', list);
    name = models[0] ?? null;
  }
  if (name === null || name === 'null') return { name: null, tier: 'standard' };
  const tier = SPEECH_MODELS[name] ?? MODEL_TIERS.find((candidate) => candidate === name);
  if (!tier) {
    throw new ProblemException(
      'invalid-model',
      `speech_model must be one of ${[...Object.keys(SPEECH_MODELS), ...MODEL_TIERS].join(', ')}; got ${JSON.stringify(name).slice(0, 60)}.`,
    );
  }
  return { name, tier };
}

function readSpeakers(raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'null') return null;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 50)
    throw field('speakers_expected', 'must be a whole number from 1 to 50');
  return value;
}

/** A JSON array of strings (the JSON body's array, read back from its text). */
function readStringList(name: string, raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'null') return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw field(name, 'must be an array of strings');
  }
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw field(name, 'must be an array of strings');
  }
  return value;
}

/** AssemblyAI's default substitution is `hash`; the native rules check the value again. */
function readSubstitution(raw: string | undefined): 'entity_name' | 'hash' {
  const value = raw?.trim() || 'hash';
  if (value !== 'entity_name' && value !== 'hash')
    throw field('redact_pii_sub', 'must be entity_name or hash');
  return value;
}
