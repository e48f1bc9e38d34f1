import { EngineError, type Pcm } from '../engine.types';

/** Fails files too short to transcribe before any model runs. */
export function assertLongEnough(pcm: Pcm, minSeconds: number): void {
  const seconds = pcm.samples.length / pcm.sampleRate;
  if (seconds < minSeconds) {
    throw new EngineError(
      'AUDIO_TOO_SHORT',
      `the audio lasts ${seconds.toFixed(2)} s; at least ${minSeconds} s are needed`,
    );
  }
}

/** Fails when speech detection found nothing to recognise. */
export function assertSpeechFound(speech: readonly unknown[]): void {
  if (speech.length === 0) throw new EngineError('NO_SPOKEN_AUDIO', 'no speech was detected in the audio');
}
