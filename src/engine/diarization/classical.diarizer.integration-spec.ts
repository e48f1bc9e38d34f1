import * as fs from 'node:fs';
import { TEST_AUDIO_DIR, testAudio } from '../../../test/support/shared-paths';
import { combineDer, diarizationErrorRate } from '../../../bench/lib/der';
import { decodeToPcm } from '../audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../engine-settings';
import type { Pcm, SpeakerHints, SpeakerTurn, TimeSpan } from '../engine.types';
import { SileroSpeechDetector } from '../speech/silero-speech-detector';
import { planChunks } from '../speech/speech-chunker';
import { ClassicalDiarizer } from './classical.diarizer';
import { diarizeInStretches, wholeFile } from './diarize-stretches';
import { parseRttm } from './rttm';

const speakers = (turns: SpeakerTurn[]): number => new Set(turns.map((turn) => turn.speaker)).size;

describe('ClassicalDiarizer on synthetic audio', () => {
  /** Two "voices": harmonic tones with different pitch and spectral tilt, alternating every 3 s. */
  function voices(): { pcm: Pcm; speech: TimeSpan[] } {
    const rate = 16000;
    const samples = new Float32Array(rate * 12);
    for (let i = 0; i < samples.length; i++) {
      const t = i / rate;
      const second = Math.floor(t / 3) % 2 === 1;
      const f0 = second ? 210 : 110;
      let value = 0;
      for (let h = 1; h <= 12; h++) value += Math.sin(2 * Math.PI * f0 * h * t) / (second ? h * h : h);
      // A slow tremolo keeps frames from being identical.
      samples[i] = 0.1 * value * (0.6 + 0.4 * Math.sin(2 * Math.PI * 3 * t)) + 0.001 * Math.sin(i * 12.9898);
    }
    return { pcm: { samples, sampleRate: 16000 }, speech: [{ start: 0, end: 12 }] };
  }

  it('tells two voices apart and numbers them by first appearance', async () => {
    const { pcm, speech } = voices();
    const turns = await diarizeInStretches(new ClassicalDiarizer(), pcm, speech, wholeFile(pcm), {
      exact: 2,
    });
    expect(turns[0].speaker).toBe('SPEAKER_00');
    expect(speakers(turns)).toBe(2);
    const at = (second: number): string | undefined =>
      turns.find((turn) => turn.start <= second && turn.end > second)?.speaker;
    expect(at(1.5)).toBe('SPEAKER_00');
    expect(at(4.5)).toBe('SPEAKER_01');
    expect(at(7.5)).toBe('SPEAKER_00');
    expect(at(10.5)).toBe('SPEAKER_01');
  });

  it('returns one speaker when told at most one, and nothing without speech', async () => {
    const { pcm, speech } = voices();
    expect(
      speakers(await diarizeInStretches(new ClassicalDiarizer(), pcm, speech, wholeFile(pcm), { exact: 1 })),
    ).toBe(1);
    await expect(diarizeInStretches(new ClassicalDiarizer(), pcm, [], wholeFile(pcm), {})).resolves.toEqual(
      [],
    );
  });

  /** Every ArrayBuffer reachable from `root` through object properties, arrays, maps and sets, counted once. */
  function reachableBufferBytes(root: unknown): number {
    const seen = new Set<unknown>();
    const buffers = new Set<ArrayBufferLike>();
    const visit = (value: unknown): void => {
      if (value === null || typeof value !== 'object' || seen.has(value)) return;
      seen.add(value);
      if (ArrayBuffer.isView(value)) buffers.add(value.buffer);
      else if (value instanceof Map) [...value.entries()].forEach(visit);
      else if (value instanceof Set) [...value].forEach(visit);
      else Object.values(value).forEach(visit);
    };
    visit(root);
    return [...buffers].reduce((sum, buffer) => sum + buffer.byteLength, 0);
  }

  it('keeps per-block statistics only: an hour costs six times ten minutes, and no samples are retained', async () => {
    const chunkSeconds = 25;
    const speechSeconds = 5;
    const { pcm } = voices();
    /** Fresh 25 s chunks (12 s of voices, repeated) with 5 s of speech each, as the pipeline would hand them over. */
    async function feed(minutes: number) {
      const session = new ClassicalDiarizer().begin({});
      for (let offset = 0; offset < minutes * 60; offset += chunkSeconds) {
        const samples = new Float32Array(chunkSeconds * 16000);
        for (let i = 0; i < samples.length; i++) samples[i] = pcm.samples[i % pcm.samples.length];
        await session.add(samples, offset, [{ start: offset + 3, end: offset + 3 + speechSeconds }]);
      }
      return session;
    }
    const short = await feed(10);
    const long = await feed(60);
    const speech = (minutes: number): number => ((minutes * 60) / chunkSeconds) * speechSeconds;
    // About two 0.5 s blocks per second of speech (a short last block per span at most), proportional to duration.
    expect(short.blocks.count).toBeGreaterThanOrEqual(speech(10) * 2);
    expect(short.blocks.count).toBeLessThanOrEqual(speech(10) * 2 + (10 * 60) / chunkSeconds);
    expect(long.blocks.count).toBe(6 * short.blocks.count);
    // Everything the session holds: the block arrays (with spare capacity), under 800 bytes per second of
    // speech, and less than a single chunk's samples (1.6 MB), let alone an hour of them (230 MB).
    const held = reachableBufferBytes(long);
    expect(held).toBe(long.blocks.bytes);
    expect(held / speech(60)).toBeLessThan(800);
    expect(held).toBeLessThan(chunkSeconds * 16000 * 4);
    const turns = await long.finish();
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.at(-1)?.end).toBeLessThanOrEqual(60 * 60);
  });

  it('keeps turns inside the speech spans', async () => {
    const { pcm } = voices();
    const speech = [
      { start: 0.5, end: 2.5 },
      { start: 6.2, end: 8.8 },
    ];
    const turns = await diarizeInStretches(new ClassicalDiarizer(), pcm, speech, wholeFile(pcm), {});
    for (const turn of turns)
      expect(speech.some((span) => turn.start >= span.start && turn.end <= span.end)).toBe(true);
  });
});

describe(`ClassicalDiarizer on real clips from ${TEST_AUDIO_DIR}`, () => {
  const detector = new SileroSpeechDetector(defaultEngineSettings().speech);
  const diarizer = new ClassicalDiarizer();

  /** The recognition chunks the pipeline plans; the session is fed one chunk at a time, as the pipeline does. */
  const chunksOf = (speech: readonly TimeSpan[], pcm: Pcm, maxChunkSeconds = 25): TimeSpan[] =>
    planChunks(speech, pcm.samples.length / pcm.sampleRate, {
      paddingSeconds: 0.3,
      maxChunkSeconds,
      breakSilenceSeconds: 2,
    });

  async function run(clip: string, hints: SpeakerHints): Promise<SpeakerTurn[]> {
    const pcm = await decodeToPcm(testAudio(clip));
    const speech = await detector.detect(pcm);
    return diarizeInStretches(diarizer, pcm, speech, chunksOf(speech, pcm), hints);
  }

  it('finds the same two speakers in sample.wav fed as one stretch or chunk by chunk', async () => {
    const pcm = await decodeToPcm(testAudio('pyannote-audio/sample.wav'));
    const speech = await detector.detect(pcm);
    // 5 s chunks: the clip's 23 s of speech would fit one 25 s chunk, and long spans get cut mid-speech.
    const chunks = chunksOf(speech, pcm, 5);
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    const whole = await diarizeInStretches(diarizer, pcm, speech, wholeFile(pcm), {});
    const chunked = await diarizeInStretches(diarizer, pcm, speech, chunks, {});
    expect(speakers(whole)).toBe(2);
    expect(speakers(chunked)).toBe(2);
  });

  it.each([
    'whisper.cpp/jfk.wav',
    'coqui-stt/LDC93S1.wav',
    'pocketsphinx/goforward.wav',
    'pocketsphinx/sense_and_sensibility_01_austen_64kb-0870.wav',
    'pocketsphinx/sense_and_sensibility_01_austen_64kb-0920.wav',
    'pocketsphinx/cards_005.wav',
    'wenet/librispeech-1995-1837-0001.wav',
    'lhotse/2412-153948-0000.flac',
    'lhotse/LJ002-0020.wav',
    'lhotse/ES2011a.Headset-0-40s-46s.wav',
    'speechbrain/LJ050-0131.wav',
    'picovoice-leopard/test.wav',
    'picovoice-cheetah/test_en_norm.wav',
    'speech-to-phrase/en_whats_the_weather_like_in_New_York.wav',
  ])('finds one speaker in the solo clip %s', async (clip) => {
    expect(speakers(await run(clip, {}))).toBe(1);
  });

  it('finds two speakers in pyannote sample.wav without hints, with DER under 25% (collar 0.25; measured 16%)', async () => {
    const turns = await run('pyannote-audio/sample.wav', {});
    expect(speakers(turns)).toBe(2);
    const reference = parseRttm(fs.readFileSync(testAudio('pyannote-audio/sample.rttm'), 'utf8'));
    const result = diarizationErrorRate(reference, turns, { collar: 0.25, skipOverlap: false });
    expect(result.der).toBeLessThan(0.25);
    // The one-speaker answer scores 46%; the diarizer must beat it clearly.
    const baseline = diarizationErrorRate(reference, [{ start: 0, end: 30, speaker: 'x' }], {
      collar: 0.25,
      skipOverlap: false,
    });
    expect(combineDer([result]).der).toBeLessThan(baseline.der - 0.15);
  });

  it('honours an exact hint of 3 on the Falcon test clip and labels each speaker right (DER under 10%)', async () => {
    const turns = await run('picovoice-falcon/test.wav', { exact: 3 });
    expect(speakers(turns)).toBe(3);
    const reference = parseRttm(fs.readFileSync(testAudio('picovoice-falcon/test.rttm'), 'utf8'));
    expect(diarizationErrorRate(reference, turns, { collar: 0.25, skipOverlap: false }).der).toBeLessThan(
      0.1,
    );
  });

  it('keeps a min/max hint', async () => {
    const turns = await run('whisper.cpp/jfk.wav', { min: 2, max: 3 });
    expect(speakers(turns)).toBe(2);
  });
});
