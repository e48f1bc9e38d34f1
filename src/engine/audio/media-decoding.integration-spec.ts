import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { eventually } from '../../../test/support/eventually';
import { childProcesses, cpuTicks } from '../../../test/support/process-table';
import { testAudio } from '../../../test/support/shared-paths';
import { EngineError } from '../engine.types';
import { decodeToPcm } from './ffmpeg-decoder';
import { measureMediaDuration, probeMedia } from './media-probe';

async function engineErrorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EngineError) return error.code;
    throw error;
  }
  return 'no error';
}

describe('media probe', () => {
  it('describes a WAV file with one audio stream', async () => {
    const probe = await probeMedia(testAudio('pocketsphinx/goforward.wav'));
    expect(probe).toEqual({
      formatName: 'wav',
      durationSeconds: expect.closeTo(2.786, 2),
      audioStreams: 1,
      videoStreams: 0,
      audioCodec: 'pcm_s16le',
      audioChannels: 1,
    });
  });

  it('sees the video and the AAC audio track of an MP4', async () => {
    const probe = await probeMedia(testAudio('lhotse/big_buck_bunny_small.mp4'));
    expect(probe.formatName).toContain('mp4');
    expect(probe.videoStreams).toBe(1);
    expect(probe.audioStreams).toBe(1);
    expect(probe.audioCodec).toBe('aac');
  });

  it('rejects a malformed WAV as DECODE_FAILED', async () => {
    expect(await engineErrorCode(probeMedia(testAudio('pocketsphinx/evil.wav')))).toBe('DECODE_FAILED');
  });

  it('rejects a text file as DECODE_FAILED', async () => {
    expect(await engineErrorCode(probeMedia(testAudio('README.md')))).toBe('DECODE_FAILED');
  });
});

describe('duration of containers that do not state it (measured, for the gates at upload)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stt-duration-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ffmpeg = (...args: string[]): Buffer =>
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args], { maxBuffer: 64 * 1024 * 1024 });

  it('a WebM written through a pipe: no stated duration, measured from its packets', async () => {
    const clip = path.join(dir, 'clip.webm');
    ffmpeg('-i', testAudio('whisper.cpp/jfk.wav'), '-c:a', 'libopus', '-b:a', '16k', clip);
    const piped = path.join(dir, 'piped.webm');
    fs.writeFileSync(
      piped,
      ffmpeg('-stream_loop', '2', '-i', clip, '-c', 'copy', '-live', '1', '-f', 'webm', 'pipe:1'),
    );
    expect((await probeMedia(piped)).durationSeconds).toBeNull();
    expect(await measureMediaDuration(piped)).toBeCloseTo(33, 0);
  }, 60_000);

  it('a VBR MP3 without a Xing header: the bitrate estimate (about 10.1 s for 11 s) is not taken as stated', async () => {
    const mp3 = path.join(dir, 'no-xing.mp3');
    ffmpeg(
      '-i',
      testAudio('whisper.cpp/jfk.wav'),
      '-write_xing',
      '0',
      '-c:a',
      'libmp3lame',
      '-q:a',
      '5',
      mp3,
    );
    expect((await probeMedia(mp3)).durationSeconds).toBeNull();
    expect(await measureMediaDuration(mp3)).toBeCloseTo(11, 0);
  }, 60_000);

  it('a WAV with no samples measures 0 s (a duration, so the job is admitted and fails AUDIO_TOO_SHORT)', async () => {
    expect((await probeMedia(testAudio('pocketsphinx/null.wav'))).durationSeconds).toBeNull();
    expect(await measureMediaDuration(testAudio('pocketsphinx/null.wav'))).toBe(0);
  }, 60_000);

  it('a file that is not media is DECODE_FAILED', async () => {
    expect(await engineErrorCode(measureMediaDuration(testAudio('README.md')))).toBe('DECODE_FAILED');
  }, 60_000);
});

describe('ffmpeg decoder', () => {
  it('decodes a 16 kHz WAV sample for sample', async () => {
    const pcm = await decodeToPcm(testAudio('pocketsphinx/goforward.wav'));
    expect(pcm.sampleRate).toBe(16000);
    expect(pcm.samples.length).toBe(44580);
    const peak = pcm.samples.reduce((max, value) => Math.max(max, Math.abs(value)), 0);
    expect(peak).toBeGreaterThan(0.05);
    expect(peak).toBeLessThanOrEqual(1);
  });

  it.each([
    ['openai-whisper/jfk.flac', 11],
    ['coqui-stt/LDC93S1_opus.opus', 2.93],
    ['coqui-stt/LDC93S1_pcms16le_1_8000.wav', 2.925],
    ['kaldi-gstreamer-server/test_2lauset.ogg', 5.717],
    ['lhotse/big_buck_bunny_small.mp4', 5.312],
  ])('resamples and downmixes %s to 16 kHz mono', async (clip, seconds) => {
    const pcm = await decodeToPcm(testAudio(clip));
    expect(pcm.samples.length / 16000).toBeCloseTo(seconds, 1);
  });

  it('gives zero samples for a WAV with no audio data', async () => {
    const pcm = await decodeToPcm(testAudio('pocketsphinx/null.wav'));
    expect(pcm.samples.length).toBe(0);
  });

  it('fails a malformed file with DECODE_FAILED', async () => {
    expect(await engineErrorCode(decodeToPcm(testAudio('pocketsphinx/evil.wav')))).toBe('DECODE_FAILED');
  });

  describe('with a generated 10-minute MP3', () => {
    let directory: string;
    let mp3: string;
    beforeAll(() => {
      directory = fs.mkdtempSync(path.join(os.tmpdir(), 'decoder-spec-'));
      mp3 = path.join(directory, 'long.mp3');
      execFileSync('ffmpeg', [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:duration=600',
        '-ac',
        '2',
        '-ar',
        '44100',
        '-b:a',
        '64k',
        mp3,
      ]);
    });
    afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

    // Speed is measured by bench:decode, not asserted here (a timed test fails on a loaded machine).
    it('streams it to PCM', async () => {
      const pcm = await decodeToPcm(mp3);
      expect(pcm.samples.length / 16000).toBeCloseTo(600, 0);
    }, 60_000);

    it('kills ffmpeg and rejects when aborted', async () => {
      const controller = new AbortController();
      const before = childProcesses(process.pid, 'ffmpeg');
      const decoding = decodeToPcm(mp3, { signal: controller.signal });
      decoding.catch(() => undefined); // awaited below; not unhandled while ffmpeg is looked for
      // Aborted once ffmpeg runs (instead of after a 20 ms sleep), then ffmpeg must be gone, not left decoding.
      const ffmpeg = await eventually(
        'ffmpeg running',
        async () => childProcesses(process.pid, 'ffmpeg').find((pid) => !before.includes(pid)),
        10_000,
        10,
      );
      controller.abort();
      await expect(decoding).rejects.toMatchObject({ name: 'AbortError' });
      await eventually('ffmpeg ending', async () => cpuTicks(ffmpeg) === null, 10_000, 50);
    });
  });
});
