import { spawn } from 'node:child_process';
import { EngineError, type Pcm } from '../engine.types';
import { abortReason } from '../abort.util';
import { lastLine } from './process-output.util';

export const SAMPLE_RATE = 16000;

export interface DecodeOptions {
  ffmpegPath?: string;
  signal?: AbortSignal;
}

/** Grows a Float32Array as s16le bytes stream in, so the whole file never sits in memory twice. */
class SampleAccumulator {
  private samples = new Float32Array(SAMPLE_RATE * 60);
  private length = 0;
  private carry: number | null = null;

  push(bytes: Buffer): void {
    let offset = 0;
    if (this.carry !== null && bytes.length > 0) {
      this.append(Buffer.from([this.carry, bytes[0]]).readInt16LE(0));
      this.carry = null;
      offset = 1;
    }
    const whole = offset + Math.floor((bytes.length - offset) / 2) * 2;
    this.reserve((whole - offset) / 2);
    for (let index = offset; index < whole; index += 2) {
      this.samples[this.length++] = bytes.readInt16LE(index) / 32768;
    }
    if (whole < bytes.length) this.carry = bytes[whole];
  }

  finish(): Float32Array {
    return this.samples.slice(0, this.length);
  }

  private append(value: number): void {
    this.reserve(1);
    this.samples[this.length++] = value / 32768;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.samples.length) return;
    let capacity = this.samples.length * 2;
    while (capacity < this.length + extra) capacity *= 2;
    const grown = new Float32Array(capacity);
    grown.set(this.samples.subarray(0, this.length));
    this.samples = grown;
  }
}

/**
 * Decodes the first audio stream of any ffmpeg-readable file to 16 kHz mono float samples.
 * Unreadable input and files without audio are DECODE_FAILED; a missing ffmpeg binary is ENGINE_FAILED.
 */
export function decodeToPcm(filePath: string, options: DecodeOptions = {}): Promise<Pcm> {
  const args = [
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
    '-ac',
    '1',
    '-ar',
    String(SAMPLE_RATE),
    '-f',
    's16le',
    '-acodec',
    'pcm_s16le',
    'pipe:1',
  ];
  return new Promise<Pcm>((resolve, reject) => {
    const signal = options.signal;
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const child = spawn(options.ffmpegPath ?? 'ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const accumulator = new SampleAccumulator();
    let stderr = '';
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const onAbort = (): void => {
      child.kill('SIGKILL');
      finish(() => reject(abortReason(signal)));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (bytes: Buffer) => accumulator.push(bytes));
    child.stderr.on('data', (bytes: Buffer) => {
      stderr = (stderr + bytes.toString('utf8')).slice(-8192);
    });
    child.on('error', (error) =>
      finish(() => reject(new EngineError('ENGINE_FAILED', `cannot run ffmpeg: ${error.message}`))),
    );
    child.on('close', (exitCode, exitSignal) => {
      if (exitCode === 0) {
        finish(() => resolve({ samples: accumulator.finish(), sampleRate: SAMPLE_RATE }));
        return;
      }
      const reason = exitSignal ? `ffmpeg killed by ${exitSignal}` : lastLine(stderr);
      finish(() =>
        reject(new EngineError('DECODE_FAILED', `audio could not be decoded: ${describe(reason)}`)),
      );
    });
  });
}

function describe(reason: string): string {
  if (/matches no streams/i.test(reason)) return 'the file has no audio stream';
  return reason;
}

/** Seconds of audio in a Pcm. */
export function pcmDuration(pcm: Pcm): number {
  return pcm.samples.length / pcm.sampleRate;
}
