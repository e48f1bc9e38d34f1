import { MODEL_TIERS, type ModelTier } from '../common/model-tier-catalogue';
import { isRecord } from '../common/is-record';
import { ProblemException } from '../common/problem/problem.exception';
import { parsePrompt, parseUploadOptions } from '../transcriptions/upload/upload-options';
import type { TurnDetection } from './recognition/live-transcriber';
import { DEFAULT_AUDIO_FORMAT, parseAudioFormat, type RealtimeAudioFormat } from './realtime-audio-format';
import { RealtimeRequestError } from './realtime-errors';

/** A transcription session's effective configuration. */
export interface SessionConfig {
  format: RealtimeAudioFormat;
  /** The model name as the client gave it (echoed back), and the tier it names. */
  modelName: string;
  tier: ModelTier;
  /** ISO 639-1, or null for the tier's default. */
  language: string | null;
  prompt: string | null;
  /** Inline vocabulary (extension), and a saved vocabulary's id (extension). */
  vocabulary: string[];
  vocabularyId: string | null;
  turnDetection: TurnDetection | null;
  /** Extension: stored on the transcription and echoed in its webhooks. */
  metadata: Record<string, string>;
  /**
   * A shorter wall-clock limit than REALTIME_MAX_SESSION_WALL_SECONDS for this session (an AssemblyAI token's
   * `max_session_duration_seconds`); absent: the server's.
   */
  maxWallSeconds?: number;
}

/** How long the session may last from its open: its own limit when shorter than the server's. */
export function sessionWallSeconds(config: SessionConfig, serverMaxSeconds: number): number {
  return Math.min(config.maxWallSeconds ?? Number.POSITIVE_INFINITY, serverMaxSeconds);
}

/** OpenAI's server_vad defaults. */
export const DEFAULT_TURN_DETECTION: TurnDetection = { threshold: 0.5, silenceMs: 500, prefixPaddingMs: 300 };

const TRANSCRIPTION = 'session.audio.input.transcription';
const TURN_DETECTION = 'session.audio.input.turn_detection';

/**
 * The model names a session takes: the tiers, `whisper-1` (the standard tier, as on the file route), and
 * OpenAI's realtime and transcription models (`gpt-…`), which the official SDK requires in the URL and which
 * this service serves with the standard tier.
 */
export function tierOfModel(name: string, param: string): ModelTier {
  const tier = MODEL_TIERS.find((candidate) => candidate === name);
  if (tier) return tier;
  if (name === 'whisper-1' || name.startsWith('gpt-')) return 'standard';
  throw new RealtimeRequestError(
    'model_not_found',
    `The model ${JSON.stringify(name)} does not exist. Use whisper-1 or one of the tiers: ${MODEL_TIERS.join(', ')}.`,
    param,
  );
}

export function initialSessionConfig(modelName: string): SessionConfig {
  return {
    format: DEFAULT_AUDIO_FORMAT,
    modelName,
    tier: tierOfModel(modelName, 'model'),
    language: null,
    prompt: null,
    vocabulary: [],
    vocabularyId: null,
    turnDetection: DEFAULT_TURN_DETECTION,
    metadata: {},
  };
}

/**
 * Applies a `session.update`'s `session` to the current configuration: only the fields present change, as in
 * OpenAI's API. Throws a RealtimeRequestError naming the first field it refuses; nothing changes then.
 */
export function applySessionUpdate(current: SessionConfig, session: unknown): SessionConfig {
  if (!isRecord(session)) throw RealtimeRequestError.invalidValue('session', 'session must be an object.');
  if (session.type !== undefined && session.type !== 'transcription') {
    throw RealtimeRequestError.invalidValue(
      'session.type',
      `This endpoint serves transcription sessions only (session.type "transcription"); got ${JSON.stringify(session.type)}.`,
    );
  }
  const next: SessionConfig = { ...current };
  const audio = optionalRecord(session.audio, 'session.audio');
  const input = optionalRecord(audio?.input, 'session.audio.input');
  if (input?.format !== undefined) next.format = parseAudioFormat(input.format);
  if (input && 'turn_detection' in input) next.turnDetection = parseTurnDetection(input.turn_detection);
  const transcription =
    input?.transcription === null ? null : optionalRecord(input?.transcription, TRANSCRIPTION);
  if (transcription) {
    if (transcription.model !== undefined) {
      const model = requireString(transcription.model, `${TRANSCRIPTION}.model`);
      next.tier = tierOfModel(model, `${TRANSCRIPTION}.model`);
      next.modelName = model;
    }
    if (transcription.language !== undefined) {
      next.language = requireString(transcription.language, `${TRANSCRIPTION}.language`) || null;
    }
    if (transcription.prompt !== undefined) {
      next.prompt = requireString(transcription.prompt, `${TRANSCRIPTION}.prompt`) || null;
    }
    if (transcription.vocabulary !== undefined) {
      if (!Array.isArray(transcription.vocabulary)) {
        throw RealtimeRequestError.invalidValue(
          `${TRANSCRIPTION}.vocabulary`,
          'vocabulary must be an array of strings.',
        );
      }
      next.vocabulary = transcription.vocabulary as string[];
    }
    if (transcription.vocabulary_id !== undefined) {
      next.vocabularyId =
        transcription.vocabulary_id === null
          ? null
          : requireString(transcription.vocabulary_id, `${TRANSCRIPTION}.vocabulary_id`);
    }
  }
  if (session.metadata !== undefined) next.metadata = session.metadata as Record<string, string>;
  checkWithUploadRules(next, transcription ?? {}, session.metadata !== undefined);
  return next;
}

/**
 * Vocabulary, saved vocabulary id, language and metadata follow exactly the file route's rules, and the prompt
 * the OpenAI-compatible route's (parsePrompt: storable text, at most 4000 characters).
 */
function checkWithUploadRules(
  config: SessionConfig,
  transcription: Record<string, unknown>,
  metadataGiven: boolean,
): void {
  const params: Record<string, string> = {
    language: `${TRANSCRIPTION}.language`,
    vocabulary: `${TRANSCRIPTION}.vocabulary`,
    vocabulary_id: `${TRANSCRIPTION}.vocabulary_id`,
    metadata: 'session.metadata',
    prompt: `${TRANSCRIPTION}.prompt`,
  };
  try {
    config.prompt = parsePrompt(config.prompt);
    const parsed = parseUploadOptions({
      ...(config.language ? { language: config.language } : {}),
      ...(transcription.vocabulary !== undefined
        ? { vocabulary: JSON.stringify(transcription.vocabulary) }
        : {}),
      ...(config.vocabularyId ? { vocabulary_id: config.vocabularyId } : {}),
      ...(metadataGiven ? { metadata: JSON.stringify(config.metadata) } : {}),
    });
    if (transcription.vocabulary !== undefined) config.vocabulary = parsed.inlineVocabulary;
  } catch (error) {
    if (!(error instanceof ProblemException)) throw error;
    const { errors } = error.extensions as { errors?: { fieldErrors?: Record<string, string[]> } };
    const fieldErrors = errors?.fieldErrors ?? {};
    const [field, messages] = Object.entries(fieldErrors)[0] ?? ['session', [error.detail]];
    throw RealtimeRequestError.invalidValue(params[field] ?? field, messages[0] ?? error.detail);
  }
}

function parseTurnDetection(value: unknown): TurnDetection | null {
  if (value === null) return null;
  const detection = optionalRecord(value, TURN_DETECTION);
  if (!detection || detection.type !== 'server_vad') {
    throw RealtimeRequestError.invalidValue(
      `${TURN_DETECTION}.type`,
      'turn_detection is server_vad or null (semantic_vad is not offered).',
    );
  }
  return {
    threshold:
      optionalNumber(detection.threshold, `${TURN_DETECTION}.threshold`, 0, 1) ??
      DEFAULT_TURN_DETECTION.threshold,
    silenceMs:
      optionalNumber(detection.silence_duration_ms, `${TURN_DETECTION}.silence_duration_ms`, 100, 10_000) ??
      DEFAULT_TURN_DETECTION.silenceMs,
    prefixPaddingMs:
      optionalNumber(detection.prefix_padding_ms, `${TURN_DETECTION}.prefix_padding_ms`, 0, 2_000) ??
      DEFAULT_TURN_DETECTION.prefixPaddingMs,
  };
}

/** The session object of session.created / session.updated, in OpenAI's GA shape plus this service's fields. */
export function describeSession(config: SessionConfig, sessionId: string, transcriptionId: string): object {
  return {
    type: 'transcription',
    object: 'realtime.transcription_session',
    id: sessionId,
    audio: {
      input: {
        format: config.format,
        transcription: {
          model: config.modelName,
          language: config.language,
          prompt: config.prompt ?? '',
          vocabulary: config.vocabulary,
          vocabulary_id: config.vocabularyId,
        },
        turn_detection: config.turnDetection
          ? {
              type: 'server_vad',
              threshold: config.turnDetection.threshold,
              prefix_padding_ms: config.turnDetection.prefixPaddingMs,
              silence_duration_ms: config.turnDetection.silenceMs,
            }
          : null,
        noise_reduction: null,
      },
    },
    include: [],
    tier: config.tier,
    transcription_id: transcriptionId,
    metadata: config.metadata,
  };
}

function optionalRecord(value: unknown, param: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value))
    throw RealtimeRequestError.invalidValue(param, `${param.split('.').pop()} must be an object.`);
  return value;
}

function requireString(value: unknown, param: string): string {
  if (typeof value !== 'string') throw RealtimeRequestError.invalidValue(param, `${param} must be a string.`);
  return value.trim();
}

function optionalNumber(value: unknown, param: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw RealtimeRequestError.invalidValue(param, `${param} must be a number from ${min} to ${max}.`);
  }
  return value;
}
