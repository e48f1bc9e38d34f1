import { AudioConverter, LinearResampler, parseAudioFormat } from './realtime-audio-format';
import { RealtimeRequestError } from './realtime-errors';

describe('realtime audio formats', () => {
  it('accepts PCM at 24 and 16 kHz and G.711 at 8 kHz, with OpenAI defaults for a missing rate', () => {
    expect(parseAudioFormat({ type: 'audio/pcm' })).toEqual({ type: 'audio/pcm', rate: 24000 });
    expect(parseAudioFormat({ type: 'audio/pcm', rate: 16000 })).toEqual({ type: 'audio/pcm', rate: 16000 });
    expect(parseAudioFormat({ type: 'audio/pcmu' })).toEqual({ type: 'audio/pcmu', rate: 8000 });
    expect(parseAudioFormat({ type: 'audio/pcma', rate: 8000 })).toEqual({ type: 'audio/pcma', rate: 8000 });
  });

  it.each([
    [{ type: 'audio/pcm', rate: 44100 }, 'session.audio.input.format.rate'],
    [{ type: 'audio/pcmu', rate: 16000 }, 'session.audio.input.format.rate'],
    [{ type: 'audio/opus' }, 'session.audio.input.format.type'],
    ['pcm16', 'session.audio.input.format'],
  ])('refuses %j naming %s', (format, param) => {
    expect(() => parseAudioFormat(format)).toThrow(
      expect.objectContaining({ param }) as RealtimeRequestError,
    );
  });

  it('joins a 16-bit sample split across two appends', () => {
    const converter = new AudioConverter({ type: 'audio/pcm', rate: 16000 });
    const bytes = Buffer.alloc(6);
    [1000, -2000, 3000].forEach((value, index) => bytes.writeInt16LE(value, index * 2));
    expect([...converter.convert(bytes.subarray(0, 3)), ...converter.convert(bytes.subarray(3))]).toEqual([
      1000, -2000, 3000,
    ]);
  });

  it('expands G.711 to the standard values', () => {
    const mulaw = new AudioConverter({ type: 'audio/pcmu', rate: 8000 });
    const alaw = new AudioConverter({ type: 'audio/pcma', rate: 8000 });
    // µ-law 0xFF and A-law 0xD5 are silence; µ-law 0x00 and A-law 0xAA the loudest values.
    const silence = [...mulaw.convert(Buffer.of(0xff, 0xff))];
    expect(silence.every((value) => value === 0)).toBe(true);
    expect(Math.min(...mulaw.convert(Buffer.of(0x00, 0x00)))).toBe(-32124);
    expect(Math.max(...alaw.convert(Buffer.of(0xaa, 0xaa)))).toBe(32256);
    const quiet = new AudioConverter({ type: 'audio/pcma', rate: 8000 }).convert(Buffer.of(0xd5, 0xd5));
    expect([...quiet].every((value) => Math.abs(value) === 8)).toBe(true);
  });

  it('resamples 24 kHz to 16 kHz and 8 kHz to 16 kHz keeping the count exact across chunk boundaries', () => {
    const ramp = Int16Array.from({ length: 2400 }, (_, index) => index);
    const down = new LinearResampler(24000, 16000);
    const chunks = [ramp.subarray(0, 1001), ramp.subarray(1001, 1700), ramp.subarray(1700)];
    const out = chunks.flatMap((chunk) => [...down.process(chunk)]);
    expect(out).toHaveLength(1600);
    expect(out.slice(0, 4)).toEqual([0, 2, 3, 5]);
    expect(out.every((value, index) => Math.abs(value - index * 1.5) <= 0.5)).toBe(true);

    const up = new LinearResampler(8000, 16000);
    const upOut = [...up.process(Int16Array.of(0, 100)), ...up.process(Int16Array.of(200, 300))];
    expect(upOut).toEqual([0, 50, 100, 150, 200, 250, 300]);
  });
});
