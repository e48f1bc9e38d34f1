import { keywordOf, toTier } from '../../deepgram-compat/deepgram-listen-request';
import { LANGUAGE_CODES, primaryLanguageSubtag } from '../../languages/languages';
import { ProblemException } from '../../common/problem/problem.exception';
import type { RealtimeAudioFormat } from '../realtime-audio-format';
import { DEFAULT_TURN_DETECTION, initialSessionConfig, type SessionConfig } from '../realtime-session-config';

/** What the Deepgram protocol layer answers from, beside the session's configuration. */
export interface DeepgramLiveOptions {
  /** The model as asked (`nova-3`), echoed in each Results' metadata. */
  model: string;
  interimResults: boolean;
  punctuate: boolean;
  vadEvents: boolean;
  /** Send UtteranceEnd after each final (`utterance_end_ms` given). */
  utteranceEnd: boolean;
}

/**
 * Parameters of Deepgram's live API this server cannot honour: asked for (any value but false) they refuse the
 * handshake with 400 naming them, as on POST /v1/listen.
 */
const NOT_AVAILABLE: Readonly<Record<string, string>> = {
  callback: 'callbacks are not available on this server',
  multichannel: 'multichannel live audio is not available on this server; open one stream per channel',
  detect_entities: 'entity detection is not available on this server',
  search: 'audio search is not available on this server',
  replace: 'find-and-replace is not available on this server',
  redact:
    'redaction of live results is not available; redact the stored transcript with POST /v1/transcriptions',
  dictation: 'dictation formatting is not available on this server',
  detect_language: 'language detection is not available on live streams; name the language',
};

const invalid = (name: string, reason: string): ProblemException =>
  ProblemException.field(name, `${name} ${reason}`);

/**
 * Reads the query string of a Deepgram live handshake (`/v1/listen?encoding=linear16&sample_rate=16000&…`) into the
 * realtime session's configuration: the same sessions, recognition, billing and limits as /v1/realtime.
 * Headerless audio only (`encoding` is required): linear16 at 16000 or 24000 Hz, mulaw or alaw at 8000 Hz, one
 * channel. docs/compatibility.md lists every parameter.
 */
export function readDeepgramLiveParams(query: URLSearchParams): {
  config: SessionConfig;
  options: DeepgramLiveOptions;
} {
  const value = (name: string): string | undefined => {
    const raw = query.getAll(name);
    return raw.length === 0 ? undefined : raw.join(',').trim();
  };
  for (const [name, reason] of Object.entries(NOT_AVAILABLE)) {
    const given = value(name)?.toLowerCase();
    if (given !== undefined && given !== '' && given !== 'false')
      throw invalid(name, `is not honoured: ${reason}`);
  }
  const flag = (name: string): boolean => {
    const raw = value(name)?.toLowerCase();
    if (raw === undefined || raw === '') return false;
    if (raw !== 'true' && raw !== 'false') throw invalid(name, 'must be true or false');
    return raw === 'true';
  };
  const model = value('model') || 'base-general';
  const tier = toTier(model);
  const channels = value('channels');
  if (channels !== undefined && channels !== '1') throw invalid('channels', 'must be 1 (mono audio)');
  const language = primaryLanguageSubtag(value('language') || 'en');
  if (!LANGUAGE_CODES.has(language))
    throw invalid('language', 'must be one of the codes of GET /v1/languages');
  const vocabulary = [...(value('keywords') ?? '').split(',').map(keywordOf), ...query.getAll('keyterm')]
    .map((word) => word.trim())
    .filter((word) => word !== '');
  const config: SessionConfig = {
    ...initialSessionConfig(tier),
    modelName: model,
    format: readFormat(value('encoding'), value('sample_rate')),
    language,
    vocabulary: vocabulary.slice(0, 500),
    turnDetection: readEndpointing(value('endpointing')),
  };
  const smartFormat = flag('smart_format');
  return {
    config,
    options: {
      model,
      interimResults: flag('interim_results'),
      punctuate: flag('punctuate') || smartFormat,
      vadEvents: flag('vad_events'),
      utteranceEnd: readUtteranceEndMs(value('utterance_end_ms')),
    },
  };
}

function readFormat(encoding: string | undefined, sampleRate: string | undefined): RealtimeAudioFormat {
  const rate = sampleRate === undefined ? undefined : Number(sampleRate);
  switch (encoding?.toLowerCase()) {
    case 'linear16':
      if (rate === 16000 || rate === 24000) return { type: 'audio/pcm', rate };
      throw invalid('sample_rate', 'must be 16000 or 24000 with encoding=linear16');
    case 'mulaw':
      if (rate === undefined || rate === 8000) return { type: 'audio/pcmu', rate: 8000 };
      throw invalid('sample_rate', 'must be 8000 with encoding=mulaw');
    case 'alaw':
      if (rate === undefined || rate === 8000) return { type: 'audio/pcma', rate: 8000 };
      throw invalid('sample_rate', 'must be 8000 with encoding=alaw');
    case undefined:
      throw invalid(
        'encoding',
        'is required: this server takes raw audio (linear16 at 16000 or 24000 Hz, mulaw or alaw at 8000 Hz), not containers',
      );
    default:
      throw invalid(
        'encoding',
        `must be linear16, mulaw or alaw; got ${JSON.stringify(encoding).slice(0, 40)}`,
      );
  }
}

/**
 * No `endpointing` (or `true`): the sessions' default turn detection (500 ms of silence). `false`: none, finals on
 * Finalize and CloseStream only. A number: that silence in ms (at least 100).
 */
function readEndpointing(raw: string | undefined): SessionConfig['turnDetection'] {
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'true') return DEFAULT_TURN_DETECTION;
  if (raw.toLowerCase() === 'false') return null;
  const silenceMs = Number(raw);
  if (!Number.isInteger(silenceMs) || silenceMs < 10 || silenceMs > 10_000) {
    throw invalid('endpointing', 'must be false or a whole number of milliseconds from 10 to 10000');
  }
  // The voice detector needs at least 100 ms of silence to tell a pause (as `silence_duration_ms` on /v1/realtime).
  return { ...DEFAULT_TURN_DETECTION, silenceMs: Math.max(100, silenceMs) };
}

function readUtteranceEndMs(raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return false;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1000 || value > 10_000) {
    throw invalid('utterance_end_ms', 'must be a whole number of milliseconds from 1000 to 10000');
  }
  return true;
}
