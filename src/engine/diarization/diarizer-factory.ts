import type { Diarizer } from '../engine.types';
import { ClassicalDiarizer, type ClassicalDiarizerSettings } from './classical.diarizer';
import {
  DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS,
  DiarizerConfigurationError,
  missingSherpaModels,
  SherpaOnnxDiarizer,
  type SherpaOnnxDiarizerSettings,
} from './sherpa-onnx.diarizer';

export type DiarizerKind = 'classical' | 'sherpa-onnx';

export interface DiarizationSettings {
  kind: DiarizerKind;
  /** Overrides of the tuned classical defaults. */
  classical?: Partial<ClassicalDiarizerSettings>;
  /** Required when kind is 'sherpa-onnx'. */
  sherpaOnnx?: Pick<SherpaOnnxDiarizerSettings, 'segmentationModelPath' | 'embeddingModelPath'> &
    Partial<SherpaOnnxDiarizerSettings>;
}

export const DEFAULT_DIARIZATION_SETTINGS: DiarizationSettings = { kind: 'classical' };

/** Builds the configured diarizer; a sherpa-onnx setup without its model files fails here, at boot. */
export function createDiarizer(settings: DiarizationSettings = DEFAULT_DIARIZATION_SETTINGS): Diarizer {
  switch (settings.kind) {
    case 'classical':
      return new ClassicalDiarizer(settings.classical);
    case 'sherpa-onnx': {
      if (!settings.sherpaOnnx) throw new DiarizerConfigurationError('sherpa-onnx diarization needs its model paths');
      const merged: SherpaOnnxDiarizerSettings = { ...DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS, ...settings.sherpaOnnx };
      const missing = missingSherpaModels(merged);
      if (missing.length > 0) throw new DiarizerConfigurationError(`sherpa-onnx diarization: ${missing.join('; ')}`);
      return new SherpaOnnxDiarizer(merged);
    }
  }
}
