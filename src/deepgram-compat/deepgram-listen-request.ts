import type { ModelTier } from '../common/model-tier-catalogue';
import { MODEL_TIERS } from '../common/model-tier-catalogue';
import { ProblemException } from '../common/problem/problem.exception';
import { primaryLanguageSubtag } from '../languages/languages';
import { parseUploadOptions, type UploadOptions } from '../transcriptions/upload/upload-options';
import type { PiiPolicy } from '../transcriptions/text/pii-redaction';
import { PII_POLICIES } from '../transcriptions/text/pii-redaction';
import { callbackMethodOf } from '../webhooks/job-callback-rules';

/** What the answer of POST /v1/listen is shaped by, beside the job's own options. */
export interface DeepgramListenRequest {
  options: UploadOptions;
  /** The model as asked (Deepgram's name), for `metadata.models`. */
  model: string;
  /** `transcript` and `punctuated_word` punctuated (punctuate or smart_format). */
  punctuate: boolean;
  /** Each word's `speaker` (diarize, or diarize_model). */
  diarize: boolean;
  utterances: boolean;
  /** Seconds of silence that end an utterance (`utt_split`, default 0.8). */
  utteranceSplit: number;
  /** `paragraphs` on each alternative (paragraphs, or smart_format as Deepgram does). */
  paragraphs: boolean;
  /** `detected_language` on each channel. */
  detectLanguage: boolean;
}

/**
 * Deepgram's model names served by our tiers (docs/compatibility.md, "Models"): its base and enhanced models by
 * the standard tier, Nova and Nova-2 by premium, Nova-3 (its best) by premium_jade; Whisper by standard, which
 * runs Whisper here once its model is pulled. A name is matched by its family (`nova-2-meeting` is Nova-2); a
 * tier's own name is itself.
 */
const MODEL_FAMILIES: ReadonlyArray<readonly [RegExp, ModelTier]> = [
  [/^nova-3(-|$)/, 'premium_jade'],
  [/^nova(-2)?(-|$)/, 'premium'],
  [/^(base|enhanced)(-|$)/, 'standard'],
  [/^whisper(-|$)/, 'standard'],
];

/**
 * Parameters this server cannot honour: asking for one (any value but false) is refused with a 400 that names
 * it, rather than answering without what was asked for. Unknown parameters are ignored, as Deepgram does.
 */
const NOT_AVAILABLE: Readonly<Record<string, string>> = {
  sentiment: 'sentiment analysis is not available on this server',
  summarize: 'summaries are not available on this server',
  topics: 'topic detection is not available on this server',
  custom_topic: 'topic detection is not available on this server',
  intents: 'intent recognition is not available on this server',
  custom_intent: 'intent recognition is not available on this server',
  detect_entities: 'entity detection is not available on this server',
  search:
    'audio search is not available on this server; search the transcript with GET /v1/transcriptions/{id}/search',
  replace: 'find-and-replace is not available here; use custom_spelling on POST /v1/transcriptions',
  dictation: 'dictation formatting is not available on this server',
  measurements: 'measurement formatting is not available on this server',
};

/** What `redact` names, as our PII policies. */
const REDACTION_POLICIES: Readonly<Record<string, readonly PiiPolicy[]>> = {
  pci: ['credit_card_number', 'banking_information'],
  numbers: ['number_sequence'],
  ssn: ['us_social_security_number'],
  pii: PII_POLICIES,
  true: PII_POLICIES,
};

const invalid = (name: string, reason: string): ProblemException =>
  ProblemException.field(name, `${name} ${reason}`);

/** Reads Deepgram's query parameters (docs/compatibility.md lists each: honoured, mapped or not available). */
export function readDeepgramListenRequest(fields: Record<string, string>): DeepgramListenRequest {
  for (const [name, reason] of Object.entries(NOT_AVAILABLE)) {
    const value = fields[name]?.trim().toLowerCase();
    if (value !== undefined && value !== '' && value !== 'false')
      throw invalid(name, `is not honoured: ${reason}`);
  }
  const flag = (name: string): boolean => {
    const raw = fields[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return false;
    if (raw !== 'true' && raw !== 'false') throw invalid(name, 'must be true or false');
    return raw === 'true';
  };
  const model = fields.model?.trim() || 'base-general';
  const smartFormat = flag('smart_format');
  const detectLanguage = fields.detect_language?.trim().toLowerCase() === 'true';
  const redaction = readRedaction(fields.redact);
  const vocabulary = [...listOf(fields.keywords).map(keywordOf), ...listOf(fields.keyterm)];
  const options = parseUploadOptions({
    model: toTier(model),
    language: detectLanguage ? 'auto' : primaryLanguage(fields.language),
    multichannel: String(flag('multichannel')),
    ...(vocabulary.length > 0 ? { vocabulary: JSON.stringify(vocabulary) } : {}),
    ...(flag('numerals') || smartFormat ? { format_numbers: 'true' } : {}),
    filter_profanity: String(flag('profanity_filter')),
    ...(redaction.length > 0
      ? { redact_pii: 'true', redact_pii_policies: redaction.join(','), redact_pii_sub: 'entity_name' }
      : {}),
  });
  return {
    options,
    model,
    punctuate: flag('punctuate') || smartFormat,
    diarize: flag('diarize') || Boolean(fields.diarize_model?.trim()),
    utterances: flag('utterances'),
    utteranceSplit: readUtteranceSplit(fields.utt_split),
    paragraphs: flag('paragraphs') || smartFormat,
    detectLanguage,
  };
}

/**
 * Deepgram's `callback` and `callback_method` (POST or PUT; Deepgram's default POST): null without a callback. The
 * URL itself is checked by the webhook target policy (JobCallbacks.prepare).
 */
export function readDeepgramCallback(
  fields: Record<string, string>,
): { url: string; method: 'POST' | 'PUT' } | null {
  const url = fields.callback?.trim();
  if (!url) return null;
  const method = callbackMethodOf(fields.callback_method);
  if (!method) throw invalid('callback_method', 'must be POST or PUT');
  return { url, method };
}

/** A Deepgram model name (or a tier's own name) as our tier; an unknown one is a 400 naming the known ones. */
export function toTier(model: string): ModelTier {
  const name = model.toLowerCase();
  const tier =
    MODEL_TIERS.find((candidate) => candidate === name) ??
    MODEL_FAMILIES.find(([pattern]) => pattern.test(name))?.[1];
  if (!tier) {
    throw new ProblemException(
      'invalid-model',
      `No such model: ${JSON.stringify(model)}. Use a Deepgram model (base, enhanced, nova, nova-2, nova-3, whisper, with any suffix such as -general) or a tier: ${MODEL_TIERS.join(', ')}.`,
    );
  }
  return tier;
}

/** `en-US` → `en`; no language is Deepgram's default, English. */
function primaryLanguage(raw: string | undefined): string {
  return primaryLanguageSubtag(raw?.trim() || 'en');
}

function listOf(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/** `word:2.5` (Deepgram's intensifier) → `word`: the vocabulary has no weights. */
export function keywordOf(keyword: string): string {
  const colon = keyword.lastIndexOf(':');
  const weight = colon < 0 ? '' : keyword.slice(colon + 1).trim();
  return (weight !== '' && Number.isFinite(Number(weight)) ? keyword.slice(0, colon) : keyword).trim();
}

function readRedaction(raw: string | undefined): PiiPolicy[] {
  const names = listOf(raw?.toLowerCase());
  if (names.length === 0 || (names.length === 1 && names[0] === 'false')) return [];
  const policies = new Set<PiiPolicy>();
  for (const name of names) {
    const mapped = REDACTION_POLICIES[name];
    if (!mapped)
      throw invalid('redact', `must be pci, pii, numbers, ssn, true or false; got ${JSON.stringify(name)}`);
    for (const policy of mapped) policies.add(policy);
  }
  return [...policies];
}

function readUtteranceSplit(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 0.8;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0.01 || value > 60) {
    throw invalid('utt_split', 'must be a number of seconds from 0.01 to 60');
  }
  return value;
}
