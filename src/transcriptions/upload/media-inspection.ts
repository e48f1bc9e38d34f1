import { ProblemException } from '../../common/problem/problem.exception';
import { measureMediaDuration, probeMedia } from '../../engine/audio/media-probe';
import { formatHours } from '../../engine/speech/audio-length.guard';
import { acceptedMediaType } from './media-type';
import type { StoredUpload } from './multipart-upload';

export interface InspectedMedia {
  mimeType: string;
  durationSeconds: number;
  /** The first audio stream's channel count; null when ffprobe states none. */
  audioChannels: number | null;
}

/**
 * The real media type (from the bytes and ffprobe), the first audio stream's channel count and the audio's
 * duration: the one the container states, else measured from its packets, so every gate (free limit, quote,
 * the OpenAI route's limit) has one before the job exists. Audio longer than `maxSeconds`
 * (MAX_AUDIO_DURATION_HOURS) is refused here; the engine stops any job whose decoded audio passes the
 * duration it was admitted with (a header can understate it).
 */
export async function inspectMedia(file: StoredUpload, maxSeconds: number): Promise<InspectedMedia> {
  const probe = await probeMedia(file.local.path).catch(() => null);
  const mimeType = acceptedMediaType(file.head, probe);
  if (!mimeType) {
    throw new ProblemException(
      'unsupported-format',
      'The file is not a decodable MP3, WAV, FLAC, OGG, M4A, AAC, MP4, MKV, WebM or MOV with an audio track.',
    );
  }
  // Measuring stops a minute past the maximum: a longer file is refused whatever its exact length.
  const durationSeconds =
    probe?.durationSeconds ??
    (await measureMediaDuration(file.local.path, { stopAfterSeconds: maxSeconds + 60 }).catch(() => null));
  if (durationSeconds === null) {
    throw ProblemException.field('file', 'the duration of the audio could not be determined');
  }
  if (durationSeconds > maxSeconds) {
    throw ProblemException.field(
      'file',
      `the audio lasts ${formatHours(durationSeconds)}; this service transcribes at most ${formatHours(maxSeconds)} per file`,
    );
  }
  return { mimeType, durationSeconds, audioChannels: probe?.audioChannels ?? null };
}
