import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testAudio } from '../../../test/support/shared-paths';
import { decodeToPcm } from '../audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../engine-settings';
import { EngineError, type Pcm } from '../engine.types';
import { assertLongEnough } from './audio-length.guard';
import { SileroSpeechDetector } from './silero-speech-detector';

const detector = new SileroSpeechDetector(defaultEngineSettings().speech);

async function speechIn(clip: string): Promise<{ start: number; end: number }[]> {
  return detector.detect(await decodeToPcm(clip));
}

describe('Silero speech detector', () => {
  it('finds the one utterance of goforward.wav', async () => {
    const spans = await speechIn(testAudio('pocketsphinx/goforward.wav'));
    expect(spans).toHaveLength(1);
    expect(spans[0].start).toBeGreaterThan(0.3);
    expect(spans[0].start).toBeLessThan(0.6);
    expect(spans[0].end).toBeGreaterThan(2.0);
    expect(spans[0].end).toBeLessThan(2.5);
  });

  it('separates the two sentences around a pause', async () => {
    const spans = await speechIn(testAudio('kaldi-gstreamer-server/test_with_silence.wav'));
    expect(spans).toHaveLength(2);
    expect(spans[1].start - spans[0].end).toBeGreaterThan(2);
  });

  it('hears all four phrases of the JFK clip', async () => {
    expect(await speechIn(testAudio('whisper.cpp/jfk.wav'))).toHaveLength(4);
  });

  it('finds no speech in near-silence', async () => {
    expect(await speechIn(testAudio('kaldi-gstreamer-server/silence.wav'))).toEqual([]);
  });

  it('finds no speech in music without dialogue', async () => {
    expect(await speechIn(testAudio('lhotse/big_buck_bunny_small.mp4'))).toEqual([]);
  });

  it('finds no speech in white noise', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vad-spec-'));
    try {
      const noise = path.join(directory, 'noise.wav');
      execFileSync('sox', ['-n', '-r', '16000', '-c', '1', noise, 'synth', '5', 'whitenoise', 'vol', '0.3']);
      expect(await speechIn(noise)).toEqual([]);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  it('stops when aborted', async () => {
    const pcm: Pcm = { samples: new Float32Array(16000 * 120), sampleRate: 16000 };
    const controller = new AbortController();
    controller.abort();
    await expect(detector.detect(pcm, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('audio length guard', () => {
  it('rejects an empty file as AUDIO_TOO_SHORT', async () => {
    const pcm = await decodeToPcm(testAudio('pocketsphinx/null.wav'));
    const seconds = pcm.samples.length / pcm.sampleRate;
    expect(() => assertLongEnough(seconds, 1)).toThrow(EngineError);
    expect(() => assertLongEnough(seconds, 1)).toThrow(expect.objectContaining({ code: 'AUDIO_TOO_SHORT' }));
  });

  it('accepts one second exactly', () => {
    expect(() => assertLongEnough(1, 1)).not.toThrow();
  });
});
