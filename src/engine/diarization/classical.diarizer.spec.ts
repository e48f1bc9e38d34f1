import * as fs from 'node:fs';
import { TEST_AUDIO_DIR, testAudio } from '../../../test/support/shared-paths';
import { combineDer, diarizationErrorRate } from '../../../bench/lib/der';
import { decodeToPcm } from '../audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../engine-settings';
import type { Pcm, SpeakerTurn, TimeSpan } from '../engine.types';
import { SileroSpeechDetector } from '../speech/silero-speech-detector';
import { ClassicalDiarizer } from './classical.diarizer';
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
    const turns = await new ClassicalDiarizer().diarize(pcm, speech, { exact: 2 });
    expect(turns[0].speaker).toBe('SPEAKER_00');
    expect(speakers(turns)).toBe(2);
    const at = (second: number): string | undefined => turns.find((turn) => turn.start <= second && turn.end > second)?.speaker;
    expect(at(1.5)).toBe('SPEAKER_00');
    expect(at(4.5)).toBe('SPEAKER_01');
    expect(at(7.5)).toBe('SPEAKER_00');
    expect(at(10.5)).toBe('SPEAKER_01');
  });

  it('returns one speaker when told at most one, and nothing without speech', async () => {
    const { pcm, speech } = voices();
    expect(speakers(await new ClassicalDiarizer().diarize(pcm, speech, { exact: 1 }))).toBe(1);
    await expect(new ClassicalDiarizer().diarize(pcm, [], {})).resolves.toEqual([]);
  });

  it('keeps turns inside the speech spans', async () => {
    const { pcm } = voices();
    const speech = [
      { start: 0.5, end: 2.5 },
      { start: 6.2, end: 8.8 },
    ];
    const turns = await new ClassicalDiarizer().diarize(pcm, speech, {});
    for (const turn of turns) expect(speech.some((span) => turn.start >= span.start && turn.end <= span.end)).toBe(true);
  });
});

describe(`ClassicalDiarizer on real clips from ${TEST_AUDIO_DIR}`, () => {
  const detector = new SileroSpeechDetector(defaultEngineSettings().speech);
  const diarizer = new ClassicalDiarizer();

  async function run(clip: string, hints: Parameters<ClassicalDiarizer['diarize']>[2]): Promise<SpeakerTurn[]> {
    const pcm = await decodeToPcm(testAudio(clip));
    return diarizer.diarize(pcm, await detector.detect(pcm), hints);
  }

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
    'whisper.cpp-mm1/mm1.wav',
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
    const baseline = diarizationErrorRate(reference, [{ start: 0, end: 30, speaker: 'x' }], { collar: 0.25, skipOverlap: false });
    expect(combineDer([result]).der).toBeLessThan(baseline.der - 0.15);
  });

  it('honours an exact hint of 3 on the Falcon test clip and labels each speaker right (DER under 10%)', async () => {
    const turns = await run('picovoice-falcon/test.wav', { exact: 3 });
    expect(speakers(turns)).toBe(3);
    const reference = parseRttm(fs.readFileSync(testAudio('picovoice-falcon/test.rttm'), 'utf8'));
    expect(diarizationErrorRate(reference, turns, { collar: 0.25, skipOverlap: false }).der).toBeLessThan(0.1);
  });

  it('keeps a min/max hint', async () => {
    const turns = await run('whisper.cpp/jfk.wav', { min: 2, max: 3 });
    expect(speakers(turns)).toBe(2);
  });
});
