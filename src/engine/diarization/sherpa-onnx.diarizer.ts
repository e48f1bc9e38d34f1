import * as fs from 'node:fs';
import { roundSeconds } from '../time.util';
import {
  EngineError,
  type DiarizationSession,
  type Diarizer,
  type SpeakerHints,
  type SpeakerTurn,
  type TimeSpan,
} from '../engine.types';
import { renumberByFirstAppearance } from './speaker-turns';

/**
 * Neural diarization through sherpa-onnx's OfflineSpeakerDiarization: a pyannote segmentation model finds who
 * talks in overlapping 10 s windows, a speaker-embedding model (3D-Speaker, WeSpeaker, NeMo) describes each
 * piece, and sherpa clusters the embeddings. The operator supplies both ONNX files; none ship with the project.
 */
export interface SherpaOnnxDiarizerSettings {
  /** pyannote segmentation ONNX, e.g. sherpa-onnx-pyannote-segmentation-3-0/model.onnx. */
  segmentationModelPath: string;
  /** Speaker-embedding ONNX, e.g. 3dspeaker_speech_eres2net_base_sv_zh-cn_3dspeaker_16k.onnx. */
  embeddingModelPath: string;
  threads: number;
  /** Cosine-distance threshold for clustering when the speaker count is not given; larger gives fewer speakers. */
  clusteringThreshold: number;
  /** Turns shorter than this are dropped, and gaps shorter than minDurationOffSeconds are bridged (sherpa's own). */
  minDurationOnSeconds: number;
  minDurationOffSeconds: number;
}

export const DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS: Omit<
  SherpaOnnxDiarizerSettings,
  'segmentationModelPath' | 'embeddingModelPath'
> = {
  threads: 1,
  clusteringThreshold: 0.5,
  minDurationOnSeconds: 0.3,
  minDurationOffSeconds: 0.5,
};

/** The slice of sherpa-onnx-node (untyped CommonJS) this adapter uses. */
export interface SherpaDiarizationConfig {
  segmentation: { pyannote: { model: string }; numThreads: number; debug: number; provider: string };
  embedding: { model: string; numThreads: number; debug: number; provider: string };
  clustering: { numClusters: number; threshold: number };
  minDurationOn: number;
  minDurationOff: number;
}

export interface SherpaDiarizationSegment {
  start: number;
  end: number;
  speaker: number;
}

export interface SherpaOfflineSpeakerDiarization {
  readonly sampleRate: number;
  process(samples: Float32Array): SherpaDiarizationSegment[];
  setConfig(config: { clustering: { numClusters: number; threshold: number } }): void;
}

export interface SherpaDiarizationModule {
  OfflineSpeakerDiarization: new (config: SherpaDiarizationConfig) => SherpaOfflineSpeakerDiarization;
}

/** Loads the native addon on first use only, so the classical path never pays for it. */
export function loadSherpaDiarizationModule(): SherpaDiarizationModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('sherpa-onnx-node') as SherpaDiarizationModule;
}

/** Thrown at startup when the configured model files are not there, so a bad deployment fails at boot. */
export class DiarizerConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiarizerConfigurationError';
  }
}

/** Names every missing model file; empty when all are present. */
export function missingSherpaModels(
  settings: Pick<SherpaOnnxDiarizerSettings, 'segmentationModelPath' | 'embeddingModelPath'>,
): string[] {
  const problems: string[] = [];
  const check = (label: string, file: string): void => {
    if (!file) problems.push(`${label} model path is not configured`);
    else if (!fs.existsSync(file) || !fs.statSync(file).isFile())
      problems.push(`${label} model not found at ${file}`);
  };
  check('segmentation', settings.segmentationModelPath);
  check('speaker-embedding', settings.embeddingModelPath);
  return problems;
}

export class SherpaOnnxDiarizer implements Diarizer {
  readonly name = 'sherpa-onnx';
  private engine: SherpaOfflineSpeakerDiarization | undefined;

  constructor(
    private readonly settings: SherpaOnnxDiarizerSettings,
    private readonly loadModule: () => SherpaDiarizationModule = loadSherpaDiarizationModule,
  ) {}

  begin(hints: SpeakerHints): DiarizationSession {
    return new SherpaOnnxDiarizationSession(hints, () => this.getEngine(), this.settings.clusteringThreshold);
  }

  private getEngine(): SherpaOfflineSpeakerDiarization {
    if (this.engine) return this.engine;
    const missing = missingSherpaModels(this.settings);
    // Missing models are a deployment fault; the error says which file so the operator can fix it.
    if (missing.length > 0)
      throw new EngineError('ENGINE_FAILED', `sherpa-onnx diarization: ${missing.join('; ')}`);
    const { threads } = this.settings;
    try {
      const module = this.loadModule();
      this.engine = new module.OfflineSpeakerDiarization({
        segmentation: {
          pyannote: { model: this.settings.segmentationModelPath },
          numThreads: threads,
          debug: 0,
          provider: 'cpu',
        },
        embedding: {
          model: this.settings.embeddingModelPath,
          numThreads: threads,
          debug: 0,
          provider: 'cpu',
        },
        clustering: { numClusters: -1, threshold: this.settings.clusteringThreshold },
        minDurationOn: this.settings.minDurationOnSeconds,
        minDurationOff: this.settings.minDurationOffSeconds,
      });
    } catch (error) {
      throw new EngineError(
        'ENGINE_FAILED',
        `sherpa-onnx diarization could not load its models: ${(error as Error).message}`,
      );
    }
    return this.engine;
  }
}

/** The pipeline's audio format (Pcm). */
const SAMPLE_RATE = 16000;

/** A stretch's place in the concatenated audio and in the file. */
interface Placement {
  /** Seconds into the concatenated audio where the stretch starts. */
  at: number;
  /** Seconds into the file where it starts. */
  offset: number;
  duration: number;
}

/**
 * sherpa-onnx clusters embeddings of the whole recording at once, so this session keeps a copy of every stretch's
 * samples, back to back (the silences between stretches are left out), and runs at finish(). Unlike the
 * classical session its memory grows with the audio fed: 4 bytes per sample, ≈ 64 kB per second of audio
 * (230 MB per hour of stretches), doubled briefly while the buffer grows.
 */
class SherpaOnnxDiarizationSession implements DiarizationSession {
  private buffer = new Float32Array(0);
  private length = 0;
  private readonly placements: Placement[] = [];
  private heardSpeech = false;

  constructor(
    private readonly hints: SpeakerHints,
    private readonly engine: () => SherpaOfflineSpeakerDiarization,
    private readonly threshold: number,
  ) {}

  async add(samples: Float32Array, offset: number, speech: readonly TimeSpan[]): Promise<void> {
    if (speech.length > 0) this.heardSpeech = true;
    if (samples.length === 0) return;
    // Loading the models here, on the first stretch, makes a broken setup fail before the file is recognised.
    const engine = this.engine();
    if (engine.sampleRate !== SAMPLE_RATE) {
      throw new EngineError(
        'ENGINE_FAILED',
        `sherpa-onnx diarization expects ${engine.sampleRate} Hz audio, got ${SAMPLE_RATE} Hz`,
      );
    }
    if (this.length + samples.length > this.buffer.length) {
      const bigger = new Float32Array(Math.max(this.length + samples.length, this.buffer.length * 2));
      bigger.set(this.buffer.subarray(0, this.length));
      this.buffer = bigger;
    }
    // Copied, not referenced: the caller's array may be a view on a much larger buffer.
    this.buffer.set(samples, this.length);
    this.placements.push({
      at: this.length / SAMPLE_RATE,
      offset,
      duration: samples.length / SAMPLE_RATE,
    });
    this.length += samples.length;
  }

  async finish(): Promise<SpeakerTurn[]> {
    if (!this.heardSpeech) return [];
    const engine = this.engine();
    const audio = this.buffer.subarray(0, this.length);
    const hints = this.hints;
    let segments = this.run(engine, audio, 'exact' in hints ? hints.exact : -1);
    if ('min' in hints) {
      // sherpa has no range option: cluster freely, then force the nearest bound when the count falls outside.
      const found = new Set(segments.map((segment) => segment.speaker)).size;
      const wanted = Math.min(Math.max(found, hints.min), hints.max);
      if (wanted !== found) segments = this.run(engine, audio, wanted);
    }
    this.buffer = new Float32Array(0);
    return renumberByFirstAppearance(segments.flatMap((segment) => this.toFileTime(segment)));
  }

  private run(
    engine: SherpaOfflineSpeakerDiarization,
    audio: Float32Array,
    clusters: number,
  ): SherpaDiarizationSegment[] {
    try {
      engine.setConfig({ clustering: { numClusters: clusters, threshold: this.threshold } });
      return engine.process(audio);
    } catch (error) {
      throw new EngineError('ENGINE_FAILED', `sherpa-onnx diarization failed: ${(error as Error).message}`);
    }
  }

  /** A segment of the concatenated audio, split where it crosses from one stretch into the next. */
  private toFileTime(segment: SherpaDiarizationSegment): SherpaDiarizationSegment[] {
    const pieces: SherpaDiarizationSegment[] = [];
    for (const { at, offset, duration } of this.placements) {
      const start = Math.max(segment.start, at);
      const end = Math.min(segment.end, at + duration);
      if (end > start) {
        pieces.push({
          start: roundSeconds(offset + start - at),
          end: roundSeconds(offset + end - at),
          speaker: segment.speaker,
        });
      }
    }
    return pieces;
  }
}
