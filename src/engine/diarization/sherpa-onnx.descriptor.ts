import { notInstalledMessage } from '../models/installed-files';
import { installedModelPath } from '../models/model-catalogue';
import type { DiarizerDescriptor } from '../registry/engine-descriptor';
import {
  DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS,
  DiarizerConfigurationError,
  missingSherpaModels,
  SherpaOnnxDiarizer,
  type SherpaOnnxDiarizerSettings,
} from './sherpa-onnx.diarizer';

/** The sherpa-onnx diarizer's two models, as catalogue names (installed by `models:pull`). */
export const SHERPA_DIARIZATION_MODELS = {
  segmentation: 'pyannote-segmentation-3-0',
  embedding: '3dspeaker-eres2net-base',
} as const;

export type SherpaOnnxTierSettings = Pick<
  SherpaOnnxDiarizerSettings,
  'segmentationModelPath' | 'embeddingModelPath'
> &
  Partial<SherpaOnnxDiarizerSettings>;

/** The neural diarizer: `auto` takes it on the premium tiers when its models are installed. */
export const sherpaOnnxDiarizer: DiarizerDescriptor<SherpaOnnxTierSettings> = {
  kind: 'sherpa-onnx',
  autoRank: 1,
  autoTiers: ['premium', 'premium_jade'],
  reportDefaults: { sherpaOnnx: null },

  resolve({ explicit, variable, modelsDir }) {
    const segmentation = installedModelPath(modelsDir, SHERPA_DIARIZATION_MODELS.segmentation);
    const embedding = installedModelPath(modelsDir, SHERPA_DIARIZATION_MODELS.embedding);
    if (segmentation && embedding) {
      const settings = { segmentationModelPath: segmentation, embeddingModelPath: embedding };
      return {
        outcome: 'resolved',
        settings,
        autoReason: '(its models are installed)',
        report: { sherpaOnnx: settings },
      };
    }
    const missing = [
      ...(segmentation ? [] : [SHERPA_DIARIZATION_MODELS.segmentation]),
      ...(embedding ? [] : [SHERPA_DIARIZATION_MODELS.embedding]),
    ];
    const why = missing.map((name) => notInstalledMessage(modelsDir, name)).join('; ');
    if (explicit) return { outcome: 'misconfigured', problems: [`${variable}=sherpa-onnx: ${why}`] };
    return { outcome: 'unavailable', reason: why };
  },

  /** A setup without its model files fails here, when the engine child builds it. */
  create(settings) {
    const merged: SherpaOnnxDiarizerSettings = { ...DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS, ...settings };
    const missing = missingSherpaModels(merged);
    if (missing.length > 0)
      throw new DiarizerConfigurationError(`sherpa-onnx diarization: ${missing.join('; ')}`);
    return new SherpaOnnxDiarizer(merged);
  },
};
