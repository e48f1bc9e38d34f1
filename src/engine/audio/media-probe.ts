import { EngineError } from '../engine.types';
import { lastLine, ProcessStartError, runProcess } from './process-output.util';

export interface MediaProbe {
  /** ffprobe's container name list, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "wav". */
  formatName: string;
  /** Container duration; null when the container does not state one. */
  durationSeconds: number | null;
  audioStreams: number;
  videoStreams: number;
  /** Codec of the first audio stream, null without audio. */
  audioCodec: string | null;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  disposition?: { attached_pic?: number };
}

interface FfprobeOutput {
  format?: { format_name?: string; duration?: string };
  streams?: FfprobeStream[];
}

/**
 * Reads container facts with ffprobe. Anything ffprobe cannot parse is DECODE_FAILED.
 * Cover art (attached pictures) does not count as a video stream.
 */
export async function probeMedia(
  filePath: string,
  options: { ffprobePath?: string; signal?: AbortSignal } = {},
): Promise<MediaProbe> {
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', filePath];
  let output;
  try {
    output = await runProcess(options.ffprobePath ?? 'ffprobe', args, { signal: options.signal });
  } catch (error) {
    if (error instanceof ProcessStartError) throw new EngineError('ENGINE_FAILED', error.message);
    throw error;
  }
  if (output.exitCode !== 0) {
    throw new EngineError('DECODE_FAILED', `file is not readable media: ${lastLine(output.stderr)}`);
  }
  let parsed: FfprobeOutput;
  try {
    parsed = JSON.parse(output.stdout.toString('utf8')) as FfprobeOutput;
  } catch {
    throw new EngineError('DECODE_FAILED', 'ffprobe returned unreadable output');
  }
  const streams = parsed.streams ?? [];
  const audio = streams.filter((stream) => stream.codec_type === 'audio');
  const video = streams.filter(
    (stream) => stream.codec_type === 'video' && stream.disposition?.attached_pic !== 1,
  );
  const duration = Number(parsed.format?.duration);
  return {
    formatName: parsed.format?.format_name ?? 'unknown',
    durationSeconds: Number.isFinite(duration) ? duration : null,
    audioStreams: audio.length,
    videoStreams: video.length,
    audioCodec: audio[0]?.codec_name ?? null,
  };
}
