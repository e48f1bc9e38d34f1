import * as fs from 'node:fs';
import { EngineError, type Diarizer, type Pcm, type SpeakerHints, type SpeakerTurn, type TimeSpan } from '../engine.types';
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

export const DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS: Omit<SherpaOnnxDiarizerSettings, 'segmentationModelPath' | 'embeddingModelPath'> = {
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
export function missingSherpaModels(settings: Pick<SherpaOnnxDiarizerSettings, 'segmentationModelPath' | 'embeddingModelPath'>): string[] {
  const problems: string[] = [];
  const check = (label: string, file: string): void => {
    if (!file) problems.push(`${label} model path is not configured`);
    else if (!fs.existsSync(file) || !fs.statSync(file).isFile()) problems.push(`${label} model not found at ${file}`);
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

  async diarize(pcm: Pcm, speech: TimeSpan[], hints: SpeakerHints): Promise<SpeakerTurn[]> {
    if (speech.length === 0) return [];
    const engine = this.getEngine();
    if (engine.sampleRate !== pcm.sampleRate) {
      throw new EngineError('ENGINE_FAILED', `sherpa-onnx diarization expects ${engine.sampleRate} Hz audio, got ${pcm.sampleRate} Hz`);
    }
    const threshold = this.settings.clusteringThreshold;
    let segments = this.run(engine, pcm, 'exact' in hints ? hints.exact : -1, threshold);
    if ('min' in hints) {
      // sherpa has no range option: cluster freely, then force the nearest bound when the count falls outside.
      const found = new Set(segments.map((segment) => segment.speaker)).size;
      const wanted = Math.min(Math.max(found, hints.min), hints.max);
      if (wanted !== found) segments = this.run(engine, pcm, wanted, threshold);
    }
    return renumberByFirstAppearance(segments);
  }

  private run(engine: SherpaOfflineSpeakerDiarization, pcm: Pcm, clusters: number, threshold: number): SherpaDiarizationSegment[] {
    try {
      engine.setConfig({ clustering: { numClusters: clusters, threshold } });
      return engine.process(pcm.samples);
    } catch (error) {
      throw new EngineError('ENGINE_FAILED', `sherpa-onnx diarization failed: ${(error as Error).message}`);
    }
  }

  private getEngine(): SherpaOfflineSpeakerDiarization {
    if (this.engine) return this.engine;
    const missing = missingSherpaModels(this.settings);
    // Missing models are a deployment fault; the error says which file so the operator can fix it.
    if (missing.length > 0) throw new EngineError('ENGINE_FAILED', `sherpa-onnx diarization: ${missing.join('; ')}`);
    const { threads } = this.settings;
    try {
      const module = this.loadModule();
      this.engine = new module.OfflineSpeakerDiarization({
        segmentation: { pyannote: { model: this.settings.segmentationModelPath }, numThreads: threads, debug: 0, provider: 'cpu' },
        embedding: { model: this.settings.embeddingModelPath, numThreads: threads, debug: 0, provider: 'cpu' },
        clustering: { numClusters: -1, threshold: this.settings.clusteringThreshold },
        minDurationOn: this.settings.minDurationOnSeconds,
        minDurationOff: this.settings.minDurationOffSeconds,
      });
    } catch (error) {
      throw new EngineError('ENGINE_FAILED', `sherpa-onnx diarization could not load its models: ${(error as Error).message}`);
    }
    return this.engine;
  }
}
