import type { ModelTier } from '../../common/model-tier-catalogue';
import { LANGUAGE_CODES, primaryLanguageSubtag } from '../../languages/languages';
import { RealtimeRequestError } from '../realtime-errors';
import type { RealtimeAudioFormat } from '../realtime-audio-format';
import { DEFAULT_TURN_DETECTION, initialSessionConfig, type SessionConfig } from '../realtime-session-config';

/** What the AssemblyAI protocol layer answers from, beside the session's configuration. */
export interface AssemblyAiStreamingOptions {
  /** Send a second, formatted Turn after each end of turn (`format_turns=true`). */
  formatTurns: boolean;
}

/**
 * AssemblyAI's streaming models served by our tiers (docs/compatibility.md): both Universal-Streaming models by
 * premium, `whisper-rt` by premium_jade; a tier's name is itself. None given: Universal-Streaming English.
 */
const STREAMING_MODELS: Readonly<Record<string, ModelTier>> = {
  'universal-streaming-english': 'premium',
  'universal-streaming-multilingual': 'premium',
  'whisper-rt': 'premium_jade',
};
const DEFAULT_STREAMING_MODEL = 'universal-streaming-english';

/**
 * Parameters of AssemblyAI's streaming API this server cannot honour: asked for (any value but false or empty)
 * they refuse the session naming them, rather than silently doing less.
 */
const NOT_AVAILABLE: Readonly<Record<string, string>> = {
  speaker_labels: 'live speaker labels are not available on this server (diarize the stored transcript)',
  language_detection: 'language detection is not available on live streams; name the language',
  webhook_url: 'streaming webhooks are not available on this server',
  redact_pii: 'redaction of live results is not available on this server',
  llm_gateway: 'the LLM gateway is not available on this server',
  filter_profanity: 'profanity filtering of live results is not available on this server',
};

/** Why a streaming session cannot open with these parameters: the parameter and a sentence. */
export class AssemblyAiStreamingParamError extends RealtimeRequestError {
  /** The close code AssemblyAI's SDK knows for it: 4000 for the audio format, 3006 (input validation) else. */
  readonly closeCode: number;

  constructor(param: string, reason: string) {
    super('invalid_value', `${param} ${reason}`, param);
    this.closeCode = param === 'sample_rate' || param === 'encoding' ? 4000 : 3006;
  }
}

/**
 * Reads the query string of an AssemblyAI streaming handshake (`/v3/ws?sample_rate=16000&encoding=pcm_s16le&…`)
 * into the realtime session's configuration: the same sessions, recognition, billing and limits as /v1/realtime.
 * Raw audio only: pcm_s16le at 16000 or 24000 Hz, pcm_mulaw at 8000 Hz, one channel.
 */
export function readAssemblyAiStreamingParams(query: URLSearchParams): {
  config: SessionConfig;
  options: AssemblyAiStreamingOptions;
} {
  const value = (name: string): string | undefined => {
    const raw = query.get(name);
    return raw === null ? undefined : raw.trim();
  };
  for (const [name, reason] of Object.entries(NOT_AVAILABLE)) {
    const given = value(name)?.toLowerCase();
    if (given !== undefined && given !== '' && given !== 'false') {
      throw new AssemblyAiStreamingParamError(name, `is not honoured: ${reason}`);
    }
  }
  const flag = (name: string): boolean => {
    const raw = value(name)?.toLowerCase();
    if (raw === undefined || raw === '') return false;
    if (raw !== 'true' && raw !== 'false')
      throw new AssemblyAiStreamingParamError(name, 'must be true or false');
    return raw === 'true';
  };
  const model = value('speech_model') || DEFAULT_STREAMING_MODEL;
  const tier = STREAMING_MODELS[model] ?? (model in TIER_NAMES ? (model as ModelTier) : undefined);
  if (tier === undefined) {
    throw new AssemblyAiStreamingParamError(
      'speech_model',
      `must be one of ${[...Object.keys(STREAMING_MODELS), ...Object.keys(TIER_NAMES)].join(', ')}; got ${JSON.stringify(model).slice(0, 60)}`,
    );
  }
  const language = readLanguage(value('language_code'), value('language'));
  const silenceMs = readTurnSilence(
    value('min_turn_silence') ?? value('min_end_of_turn_silence_when_confident'),
  );
  const config: SessionConfig = {
    ...initialSessionConfig(tier),
    modelName: model,
    format: readFormat(value('encoding'), value('sample_rate')),
    language,
    vocabulary: readKeyterms(value('keyterms_prompt') ?? value('keyterms')),
    turnDetection: { ...DEFAULT_TURN_DETECTION, silenceMs: silenceMs ?? DEFAULT_TURN_DETECTION.silenceMs },
  };
  return { config, options: { formatTurns: flag('format_turns') } };
}

/** The session's turn silence from an UpdateConfiguration's `min_turn_silence` (null: unchanged). */
export function readTurnSilence(raw: string | number | null | undefined): number | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const silenceMs = Number(raw);
  if (!Number.isInteger(silenceMs) || silenceMs < 0 || silenceMs > 10_000) {
    throw new AssemblyAiStreamingParamError(
      'min_turn_silence',
      'must be a whole number of milliseconds up to 10000',
    );
  }
  // The voice detector needs at least 100 ms of silence to tell a pause (as `silence_duration_ms` on /v1/realtime).
  return Math.max(100, silenceMs);
}

const TIER_NAMES: Readonly<Record<string, true>> = { standard: true, premium: true, premium_jade: true };

function readFormat(encoding: string | undefined, sampleRate: string | undefined): RealtimeAudioFormat {
  const rate = sampleRate === undefined || sampleRate === '' ? undefined : Number(sampleRate);
  switch ((encoding || 'pcm_s16le').toLowerCase()) {
    case 'pcm_s16le':
      if (rate === undefined || rate === 16000) return { type: 'audio/pcm', rate: 16000 };
      if (rate === 24000) return { type: 'audio/pcm', rate: 24000 };
      throw new AssemblyAiStreamingParamError(
        'sample_rate',
        'must be 16000 or 24000 with encoding=pcm_s16le',
      );
    case 'pcm_mulaw':
      if (rate === undefined || rate === 8000) return { type: 'audio/pcmu', rate: 8000 };
      throw new AssemblyAiStreamingParamError('sample_rate', 'must be 8000 with encoding=pcm_mulaw');
    default:
      throw new AssemblyAiStreamingParamError(
        'encoding',
        `must be pcm_s16le or pcm_mulaw (raw audio, not containers); got ${JSON.stringify(encoding).slice(0, 40)}`,
      );
  }
}

/** `language_code` (`en`, `de`…), else the deprecated `language` (`en`; `multi` means none named). */
function readLanguage(code: string | undefined, legacy: string | undefined): string | null {
  const given = code || (legacy === 'multi' ? undefined : legacy);
  if (!given) return null;
  const language = primaryLanguageSubtag(given);
  if (!LANGUAGE_CODES.has(language)) {
    throw new AssemblyAiStreamingParamError(
      code ? 'language_code' : 'language',
      'must be one of the codes of GET /v1/languages',
    );
  }
  return language;
}

/** `keyterms_prompt`: a JSON array of words and phrases (the SDK sends it so), at most 100 as AssemblyAI allows. */
function readKeyterms(raw: string | undefined): string[] {
  if (raw === undefined || raw === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || !parsed.every((term) => typeof term === 'string')) {
    throw new AssemblyAiStreamingParamError('keyterms_prompt', 'must be a JSON array of strings');
  }
  const terms = parsed.map((term: string) => term.trim()).filter((term) => term !== '');
  if (terms.length > 100)
    throw new AssemblyAiStreamingParamError('keyterms_prompt', 'takes at most 100 terms');
  return terms;
}
