import { LIVE_SAMPLE_RATE } from './recognition/live-transcriber';
import { RealtimeRequestError } from './realtime-errors';

/**
 * The input formats a session accepts: OpenAI's `audio/pcm` (24 kHz; 16 kHz here too), and G.711 µ-law
 * (`audio/pcmu`) and A-law (`audio/pcma`) at 8 kHz, as telephony media streams send them.
 */
export type RealtimeAudioFormat =
  | { type: 'audio/pcm'; rate: 16000 | 24000 }
  | { type: 'audio/pcmu'; rate: 8000 }
  | { type: 'audio/pcma'; rate: 8000 };

/** OpenAI's default input format. */
export const DEFAULT_AUDIO_FORMAT: RealtimeAudioFormat = { type: 'audio/pcm', rate: 24000 };

const FORMAT_PARAM = 'session.audio.input.format';

/** Reads `session.audio.input.format`; anything else is refused naming the field. */
export function parseAudioFormat(value: unknown): RealtimeAudioFormat {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw RealtimeRequestError.invalidValue(FORMAT_PARAM, 'format must be an object with a `type`.');
  }
  const { type, rate } = value as { type?: unknown; rate?: unknown };
  switch (type) {
    case 'audio/pcm':
      if (rate === undefined || rate === 24000 || rate === 16000) {
        return { type, rate: rate ?? 24000 };
      }
      throw RealtimeRequestError.invalidValue(
        `${FORMAT_PARAM}.rate`,
        `audio/pcm is taken at 24000 or 16000 Hz (16-bit little-endian mono); got ${JSON.stringify(rate)}.`,
      );
    case 'audio/pcmu':
    case 'audio/pcma':
      if (rate === undefined || rate === 8000) return { type, rate: 8000 };
      throw RealtimeRequestError.invalidValue(
        `${FORMAT_PARAM}.rate`,
        `${type} is G.711 at 8000 Hz; got ${JSON.stringify(rate)}.`,
      );
    default:
      throw RealtimeRequestError.invalidValue(
        `${FORMAT_PARAM}.type`,
        `format.type must be audio/pcm, audio/pcmu or audio/pcma; got ${JSON.stringify(type)}.`,
      );
  }
}

/** The number of input bytes that make one second of audio in `format`. */
export function bytesPerSecond(format: RealtimeAudioFormat): number {
  return format.type === 'audio/pcm' ? format.rate * 2 : format.rate;
}

/**
 * Turns a session's input bytes, chunk by chunk, into 16 kHz PCM16: G.711 expanded, then resampled by linear
 * interpolation (8 kHz up, 24 kHz down). A 16-bit sample split across two appends is joined.
 */
export class AudioConverter {
  private oddByte: number | null = null;
  private readonly resampler: LinearResampler | null;

  constructor(readonly format: RealtimeAudioFormat) {
    this.resampler =
      format.rate === LIVE_SAMPLE_RATE ? null : new LinearResampler(format.rate, LIVE_SAMPLE_RATE);
  }

  convert(bytes: Buffer): Int16Array {
    const samples = this.decode(bytes);
    return this.resampler ? this.resampler.process(samples) : samples;
  }

  private decode(bytes: Buffer): Int16Array {
    switch (this.format.type) {
      case 'audio/pcmu':
        return Int16Array.from(bytes, (byte) => MULAW_TABLE[byte]);
      case 'audio/pcma':
        return Int16Array.from(bytes, (byte) => ALAW_TABLE[byte]);
      case 'audio/pcm': {
        let input = bytes;
        if (this.oddByte !== null) {
          input = Buffer.concat([Buffer.of(this.oddByte), bytes]);
          this.oddByte = null;
        }
        const whole = input.length - (input.length % 2);
        if (whole < input.length) this.oddByte = input[whole];
        const out = new Int16Array(whole / 2);
        for (let index = 0; index < out.length; index++) out[index] = input.readInt16LE(index * 2);
        return out;
      }
    }
  }
}

/** A streaming linear-interpolation resampler; its state carries across chunks. */
export class LinearResampler {
  private readonly step: number;
  /** The position of the next output sample, in input samples from the start of the next chunk (≥ -1). */
  private position = 0;
  private previous = 0;

  constructor(inputRate: number, outputRate: number) {
    this.step = inputRate / outputRate;
  }

  process(input: Int16Array): Int16Array {
    const out: number[] = [];
    let position = this.position;
    while (position <= input.length - 1) {
      const index = Math.floor(position);
      const fraction = position - index;
      const before = index < 0 ? this.previous : input[index];
      const after = fraction === 0 ? before : input[index + 1];
      out.push(Math.round(before + (after - before) * fraction));
      position += this.step;
    }
    if (input.length > 0) {
      this.position = position - input.length;
      this.previous = input[input.length - 1];
    }
    return Int16Array.from(out);
  }
}

/** G.711 µ-law expansion (ITU-T G.711, as in Sun's g711.c). */
const MULAW_TABLE = Int16Array.from({ length: 256 }, (_, code) => {
  const value = ~code & 0xff;
  const exponent = (value >> 4) & 0x07;
  const magnitude = ((((value & 0x0f) << 3) + 0x84) << exponent) - 0x84;
  return value & 0x80 ? -magnitude : magnitude;
});

/** G.711 A-law expansion. */
const ALAW_TABLE = Int16Array.from({ length: 256 }, (_, code) => {
  const value = code ^ 0x55;
  const exponent = (value >> 4) & 0x07;
  let magnitude = (value & 0x0f) << 4;
  magnitude = exponent === 0 ? magnitude + 8 : (magnitude + 0x108) << (exponent - 1);
  return value & 0x80 ? magnitude : -magnitude;
});
