import { EngineError } from '../engine.types';
import { lastLine, ProcessStartError, runProcess } from './process-output.util';

export interface MediaProbe {
  /** ffprobe's container name list, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "wav". */
  formatName: string;
  /**
   * Container duration; null when the container does not state one, or when ffprobe only estimated it from
   * the bitrate (an MP3 without a Xing header: a guess, far off for VBR). measureMediaDuration finds it then.
   */
  durationSeconds: number | null;
  audioStreams: number;
  videoStreams: number;
  /** Codec of the first audio stream, null without audio. */
  audioCodec: string | null;
  /** Channels of the first audio stream, null without audio or when ffprobe states none. */
  audioChannels: number | null;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  channels?: number;
  disposition?: { attached_pic?: number };
}

interface FfprobeOutput {
  format?: { format_name?: string; duration?: string };
  streams?: FfprobeStream[];
}

const ESTIMATED_DURATION_WARNING = 'Estimating duration from bitrate';

/**
 * Reads container facts with ffprobe. Anything ffprobe cannot parse is DECODE_FAILED.
 * Cover art (attached pictures) does not count as a video stream.
 */
export async function probeMedia(
  filePath: string,
  options: { ffprobePath?: string; signal?: AbortSignal } = {},
): Promise<MediaProbe> {
  // Warnings too: ffprobe says so on stderr when the duration is only an estimate.
  const args = ['-v', 'warning', '-print_format', 'json', '-show_format', '-show_streams', '--', filePath];
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
  const duration = output.stderr.includes(ESTIMATED_DURATION_WARNING) ? NaN : Number(parsed.format?.duration);
  return {
    formatName: parsed.format?.format_name ?? 'unknown',
    durationSeconds: Number.isFinite(duration) ? duration : null,
    audioStreams: audio.length,
    videoStreams: video.length,
    audioCodec: audio[0]?.codec_name ?? null,
    audioChannels: audio[0]?.channels ?? null,
  };
}

/**
 * The duration of the first audio stream, from the timestamps of its packets: ffmpeg copies them to the null
 * muxer without decoding (about 3 µs of CPU per packet: 0.35 s for 40 min of Opus, some 4 s for 500 MB of
 * 128 kb/s Opus, 7 times less than decoding it; `npm run bench:duration-probe`). For containers that
 * state no duration (WebM/Matroska written through a pipe, MediaRecorder output) or only an estimate. Null
 * when ffmpeg finds no timestamp; DECODE_FAILED when it cannot read the file. `stopAfterSeconds` bounds the
 * work: reading stops there, and the answer is then about that value.
 */
export async function measureMediaDuration(
  filePath: string,
  options: { ffmpegPath?: string; signal?: AbortSignal; stopAfterSeconds?: number } = {},
): Promise<number | null> {
  const stop = options.stopAfterSeconds === undefined ? [] : ['-t', String(options.stopAfterSeconds)];
  const args = [
    ...['-hide_banner', '-nostdin', '-nostats', '-v', 'error', '-i', filePath],
    ...['-map', '0:a:0', '-c', 'copy', ...stop, '-f', 'null', '-progress', 'pipe:1', '-'],
  ];
  let output;
  try {
    output = await runProcess(options.ffmpegPath ?? 'ffmpeg', args, { signal: options.signal });
  } catch (error) {
    if (error instanceof ProcessStartError) throw new EngineError('ENGINE_FAILED', error.message);
    throw error;
  }
  if (output.exitCode !== 0) {
    throw new EngineError('DECODE_FAILED', `file is not readable media: ${lastLine(output.stderr)}`);
  }
  // -progress writes blocks of key=value lines; the last block's out_time_us is where the stream ended.
  const times = [...output.stdout.toString('utf8').matchAll(/^out_time_us=(\d+)$/gm)];
  const last = times.at(-1);
  const seconds = last ? Number(last[1]) / 1e6 : NaN;
  // 0 is a measurement too (a WAV with no samples): the job is admitted and fails AUDIO_TOO_SHORT unbilled, and
  // packets without timestamps cannot hide audio behind it, as decoding stops past the admitted duration.
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}
