import { spawn } from 'node:child_process';
import { EngineError, type Pcm } from '../engine.types';
import { abortReason, throwIfAborted } from '../abort.util';
import { lastLine } from './process-output.util';

export const SAMPLE_RATE = 16000;

export interface DecodeOptions {
  ffmpegPath?: string;
  signal?: AbortSignal;
  /**
   * Decode only this channel (0-based) of the first audio stream instead of the mix of all channels: each
   * channel of a multichannel recording is its own stream, read by its own ffmpeg, so one slow channel never
   * holds another's samples in memory.
   */
  channel?: number;
}

/** Collects float blocks into one array (doubling capacity), for decodeToPcm. */
class SampleAccumulator {
  private samples = new Float32Array(SAMPLE_RATE * 60);
  private length = 0;

  push(block: Float32Array): void {
    if (this.length + block.length > this.samples.length) {
      let capacity = this.samples.length * 2;
      while (capacity < this.length + block.length) capacity *= 2;
      const grown = new Float32Array(capacity);
      grown.set(this.samples.subarray(0, this.length));
      this.samples = grown;
    }
    this.samples.set(block, this.length);
    this.length += block.length;
  }

  finish(): Float32Array {
    return this.samples.slice(0, this.length);
  }
}

function ffmpegArguments(filePath: string, channel: number | undefined): string[] {
  const mono = channel === undefined ? ['-ac', '1'] : ['-af', `pan=mono|c0=c${channel}`];
  return [
    '-nostdin',
    '-hide_banner',
    '-v',
    'error',
    '-i',
    filePath,
    '-map',
    '0:a:0',
    '-vn',
    '-sn',
    '-dn',
    ...mono,
    '-ar',
    String(SAMPLE_RATE),
    '-f',
    's16le',
    '-acodec',
    'pcm_s16le',
    'pipe:1',
  ];
}

/**
 * Decodes the first audio stream of any ffmpeg-readable file (all channels mixed, or one of them) to 16 kHz
 * mono float samples, as a stream of blocks (at most a pipe buffer each, ~2 s). ffmpeg is paused while the consumer is busy (the pipe's
 * backpressure), so memory does not grow with the file however slowly the blocks are used.
 * Unreadable input and files without audio are DECODE_FAILED; a missing ffmpeg binary is ENGINE_FAILED.
 */
export async function* decodePcmStream(
  filePath: string,
  options: DecodeOptions = {},
): AsyncGenerator<Float32Array, void, undefined> {
  const signal = options.signal;
  throwIfAborted(signal);
  const child = spawn(options.ffmpegPath ?? 'ffmpeg', ffmpegArguments(filePath, options.channel), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (bytes: Buffer) => {
    stderr = (stderr + bytes.toString('utf8')).slice(-8192);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
    (resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('close', (code, exitSignal) => resolve({ code, signal: exitSignal }));
    },
  );
  const onAbort = (): void => {
    child.kill('SIGKILL');
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let carry: number | null = null;
  try {
    for await (const bytes of child.stdout as AsyncIterable<Buffer>) {
      throwIfAborted(signal);
      let offset = 0;
      const samples = new Float32Array(Math.floor((bytes.length + (carry === null ? 0 : 1)) / 2));
      let length = 0;
      if (carry !== null && bytes.length > 0) {
        samples[length++] = Buffer.from([carry, bytes[0]]).readInt16LE(0) / 32768;
        carry = null;
        offset = 1;
      }
      const whole = offset + Math.floor((bytes.length - offset) / 2) * 2;
      const pairs = (whole - offset) / 2;
      // An aligned view reads the little-endian samples at once (x86 and ARM hosts are little-endian).
      const view =
        (bytes.byteOffset + offset) % 2 === 0
          ? new Int16Array(bytes.buffer, bytes.byteOffset + offset, pairs)
          : new Int16Array(Uint8Array.prototype.slice.call(bytes, offset, whole).buffer);
      for (let index = 0; index < pairs; index++) samples[length++] = view[index] / 32768;
      if (whole < bytes.length) carry = bytes[whole];
      if (length > 0) yield samples.subarray(0, length);
    }
    const exit = await exited;
    throwIfAborted(signal);
    if (exit.error) throw new EngineError('ENGINE_FAILED', `cannot run ffmpeg: ${exit.error.message}`);
    if (exit.code !== 0) {
      const reason = exit.signal ? `ffmpeg killed by ${exit.signal}` : lastLine(stderr);
      throw new EngineError('DECODE_FAILED', `audio could not be decoded: ${describe(reason)}`);
    }
  } catch (error) {
    throw signal?.aborted ? abortReason(signal) : error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // The consumer stopped early (an error downstream, a limit): ffmpeg must not run on.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** The whole file as one Pcm: for tools and tests on short clips. The engine itself streams. */
export async function decodeToPcm(filePath: string, options: DecodeOptions = {}): Promise<Pcm> {
  const accumulator = new SampleAccumulator();
  for await (const block of decodePcmStream(filePath, options)) accumulator.push(block);
  return { samples: accumulator.finish(), sampleRate: SAMPLE_RATE };
}

function describe(reason: string): string {
  if (/matches no streams/i.test(reason)) return 'the file has no audio stream';
  return reason;
}

/** Seconds of audio in a Pcm. */
export function pcmDuration(pcm: Pcm): number {
  return pcm.samples.length / pcm.sampleRate;
}
