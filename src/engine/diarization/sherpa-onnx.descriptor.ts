import { notInstalledMessage } from '../models/installed-files';
import { installedModelPath } from '../models/model-catalogue';
import type { DiarizerDescriptor } from '../registry/engine-descriptor';
import { sherpaOnnxFactory, type SherpaOnnxTierSettings } from './sherpa-onnx.factory';

export type { SherpaOnnxTierSettings } from './sherpa-onnx.factory';

/** The sherpa-onnx diarizer's two models, as catalogue names (installed by `models:pull`). */
export const SHERPA_DIARIZATION_MODELS = {
  segmentation: 'pyannote-segmentation-3-0',
  embedding: '3dspeaker-eres2net-base',
} as const;

/** The neural diarizer: `auto` takes it on the premium tiers when its models are installed. */
export const sherpaOnnxDiarizer: DiarizerDescriptor<SherpaOnnxTierSettings> = {
  ...sherpaOnnxFactory,
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
};
