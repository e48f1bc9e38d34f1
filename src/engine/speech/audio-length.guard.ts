import { EngineError } from '../engine.types';

/** Fails files too short to transcribe. */
export function assertLongEnough(seconds: number, minSeconds: number): void {
  if (seconds < minSeconds) {
    throw new EngineError(
      'AUDIO_TOO_SHORT',
      `the audio lasts ${seconds.toFixed(2)} s; at least ${minSeconds} s are needed`,
    );
  }
}

/**
 * Fails files longer than the deployment's maximum, from the container's stated duration before decoding and
 * again while decoding (a header can lie: a decompression bomb states little and decodes to hours).
 */
export function assertNotTooLong(seconds: number, maxSeconds: number): void {
  if (seconds > maxSeconds) {
    throw new EngineError(
      'AUDIO_TOO_LONG',
      `the audio lasts more than ${formatHours(maxSeconds)}, the longest this service transcribes`,
    );
  }
}

/**
 * Fails a job whose decoded audio passes the duration it was admitted with (TranscribeRequest.admittedSeconds):
 * its header understated the audio, and the free limit, the quote or the OpenAI route's limit was decided on less.
 */
export function assertWithinAdmitted(seconds: number, admittedSeconds: number | undefined): void {
  if (admittedSeconds !== undefined && seconds > admittedSeconds) {
    throw new EngineError(
      'AUDIO_TOO_LONG',
      `the audio lasts more than ${formatHours(admittedSeconds)}, the duration its upload was admitted for (its container understates it)`,
    );
  }
}

/** Fails when speech detection found nothing to recognise. */
export function assertSpeechFound(found: boolean): void {
  if (!found) throw new EngineError('NO_SPOKEN_AUDIO', 'no speech was detected in the audio');
}

/** A duration for messages: "12 h", "1.5 h", "20 min", "9 s". */
export function formatHours(seconds: number): string {
  if (seconds >= 3600) return `${Number((seconds / 3600).toFixed(2))} h`;
  if (seconds >= 60) return `${Number((seconds / 60).toFixed(1))} min`;
  return `${Number(seconds.toFixed(1))} s`;
}
