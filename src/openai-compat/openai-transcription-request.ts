import { MODEL_TIERS, type ModelTier } from '../common/model-tier-catalogue';
import { ProblemException } from '../common/problem/problem.exception';
import { parsePrompt, parseUploadOptions, type UploadOptions } from '../transcriptions/upload/upload-options';
import { OpenAiApiError } from './openai-error';

export const OPENAI_RESPONSE_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;
export type OpenAiResponseFormat = (typeof OPENAI_RESPONSE_FORMATS)[number];

/** OpenAI's model name for its Whisper endpoint, served by our default tier. */
const MODEL_ALIASES: Readonly<Record<string, ModelTier>> = { 'whisper-1': 'standard' };

export interface OpenAiTranscriptionRequest {
  /** The job's options, read by the native upload's own rules (language codes, tier/language policy). */
  options: UploadOptions;
  responseFormat: OpenAiResponseFormat;
  /** verbose_json only: `words` when asked for; `segments` when asked for or when nothing is asked. */
  words: boolean;
  segments: boolean;
}

const invalid = (param: string, message: string, code: string | null = null): OpenAiApiError =>
  new OpenAiApiError(400, message, 'invalid_request_error', code, param);

/**
 * Reads OpenAI's form fields. `prompt` becomes the job's initial prompt for Whisper-family recognisers
 * (PocketSphinx, the standard tier's default, has no such input). `temperature` is accepted and ignored
 * (decoding is deterministic); other unknown fields are ignored too, as newer SDKs send parameters this route
 * does not know. `stream=true` is refused: the answer is never streamed.
 */
export function readOpenAiTranscriptionRequest(fields: Record<string, string>): OpenAiTranscriptionRequest {
  const responseFormat = fields.response_format?.trim() || 'json';
  if (!(OPENAI_RESPONSE_FORMATS as readonly string[]).includes(responseFormat)) {
    throw invalid(
      'response_format',
      `response_format must be one of ${OPENAI_RESPONSE_FORMATS.join(', ')}; got ${JSON.stringify(responseFormat)}.`,
    );
  }
  if (fields.stream?.trim().toLowerCase() === 'true') {
    throw invalid(
      'stream',
      'Streaming is not supported on this endpoint; send stream=false or leave it out.',
    );
  }
  const granularities = readGranularities(fields);
  const options = parseUploadOptions({
    model: toTier(fields.model),
    ...(fields.language !== undefined ? { language: fields.language } : {}),
  });
  return {
    options: { ...options, prompt: readPrompt(fields.prompt) },
    responseFormat: responseFormat as OpenAiResponseFormat,
    words: granularities.has('word'),
    segments: granularities.size === 0 || granularities.has('segment'),
  };
}

function readPrompt(raw: string | undefined): string | null {
  try {
    return parsePrompt(raw);
  } catch (error) {
    if (error instanceof ProblemException) throw invalid('prompt', error.detail);
    throw error;
  }
}

/** `whisper-1` is the standard tier, a tier name is itself; no model at all is the default tier too. */
export function toTier(model: string | undefined): ModelTier {
  const name = model?.trim() || 'whisper-1';
  const tier = MODEL_ALIASES[name] ?? MODEL_TIERS.find((candidate) => candidate === name);
  if (!tier) {
    throw invalid(
      'model',
      `The model ${JSON.stringify(name)} does not exist. Use whisper-1 or one of the tiers: ${MODEL_TIERS.join(', ')}.`,
      'model_not_found',
    );
  }
  return tier;
}

/** `timestamp_granularities[]` (repeated, as the SDK sends it) or `timestamp_granularities` (a list). */
function readGranularities(fields: Record<string, string>): Set<string> {
  const raw = [fields['timestamp_granularities[]'], fields.timestamp_granularities]
    .filter((value): value is string => value !== undefined)
    .join(',');
  const values = raw
    .replace(/[[\]"]/g, '')
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  const unknown = values.find((value) => value !== 'word' && value !== 'segment');
  if (unknown !== undefined) {
    throw invalid(
      'timestamp_granularities',
      `timestamp_granularities may hold word and segment; got ${JSON.stringify(unknown)}.`,
    );
  }
  return new Set(values);
}
