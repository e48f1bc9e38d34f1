import type { DiarizerFactory } from '../registry/engine-descriptor';
import {
  DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS,
  DiarizerConfigurationError,
  missingSherpaModels,
  SherpaOnnxDiarizer,
  type SherpaOnnxDiarizerSettings,
} from './sherpa-onnx.diarizer';

export type SherpaOnnxTierSettings = Pick<
  SherpaOnnxDiarizerSettings,
  'segmentationModelPath' | 'embeddingModelPath'
> &
  Partial<SherpaOnnxDiarizerSettings>;

export const sherpaOnnxFactory: DiarizerFactory<SherpaOnnxTierSettings> = {
  kind: 'sherpa-onnx',
  /** A setup without its model files fails here, when the engine child builds it. */
  create(settings) {
    const merged: SherpaOnnxDiarizerSettings = { ...DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS, ...settings };
    const missing = missingSherpaModels(merged);
    if (missing.length > 0)
      throw new DiarizerConfigurationError(`sherpa-onnx diarization: ${missing.join('; ')}`);
    return new SherpaOnnxDiarizer(merged);
  },
};
