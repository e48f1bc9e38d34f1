/** Typed view of the part of sherpa-onnx-node (untyped CommonJS) that we use: the Silero VAD. */

export interface SherpaVadConfig {
  sileroVad: {
    model: string;
    threshold: number;
    minSilenceDuration: number;
    minSpeechDuration: number;
    windowSize: number;
    maxSpeechDuration: number;
  };
  sampleRate: number;
  numThreads: number;
  provider: string;
  debug: boolean;
}

export interface SherpaSpeechSegment {
  /** First sample of the segment. */
  start: number;
  samples: Float32Array;
}

export interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  front(enableExternalBuffer?: boolean): SherpaSpeechSegment;
  pop(): void;
  flush(): void;
  /** Whether the detector is inside speech now (it started and its closing silence has not yet passed). */
  isDetected(): boolean;
  /** Forgets the audio and state so far. */
  reset(): void;
}

interface SherpaModule {
  Vad: new (config: SherpaVadConfig, bufferSizeInSeconds: number) => SherpaVad;
}

let loaded: SherpaModule | undefined;

/** Loads the native addon on first use only, so importing this file costs nothing. */
export function createSherpaVad(config: SherpaVadConfig, bufferSizeInSeconds: number): SherpaVad {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('sherpa-onnx-node') as SherpaModule;
  return new loaded.Vad(config, bufferSizeInSeconds);
}
