import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testAudio } from '../../../test/support/shared-paths';
import { wordErrorRate } from '../../../bench/lib/word-error-rate';
import { defaultEngineSettings } from '../engine-settings';
import { SingleSpeakerDiarizer } from '../diarization/single-speaker.diarizer';
import type { PipelineStage, TranscribeRequest } from '../engine.types';
import { POCKETSPHINX_IDENTITY, PocketSphinxRecognizer } from '../pocketsphinx/pocketsphinx-recognizer';
import { RecognizerThreadPool } from '../pocketsphinx/recognizer-thread-pool';
import { SileroSpeechDetector } from '../speech/silero-speech-detector';
import { TranscriptionPipeline } from './transcription-pipeline';

const singleSpeaker = new SingleSpeakerDiarizer();

jest.setTimeout(120_000);

describe('TranscriptionPipeline', () => {
  const settings = defaultEngineSettings();
  const recognizer = new PocketSphinxRecognizer(settings.pocketsphinx);
  const pipeline = new TranscriptionPipeline({
    recognizer,
    speechDetector: new SileroSpeechDetector(settings.speech),
    diarizer: singleSpeaker,
    settings,
  });
  afterAll(() => recognizer.close());

  const request = (clip: string, extra: Partial<TranscribeRequest> = {}): TranscribeRequest => ({
    audioPath: testAudio(clip),
    model: 'standard',
    language: 'auto',
    vocabulary: [],
    prompt: null,
    speakers: {},
    ...extra,
  });

  async function failureCode(clip: string, extra: Partial<TranscribeRequest> = {}): Promise<string> {
    try {
      await pipeline.run(request(clip, extra));
      return 'no error';
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    }
  }

  it('transcribes goforward.wav with progress through every stage', async () => {
    const progress: [number, PipelineStage][] = [];
    const result = await pipeline.run(request('pocketsphinx/goforward.wav'), {
      onProgress: (percent, stage) => progress.push([percent, stage]),
    });
    expect(result.text).toBe('Go forward ten meters.');
    expect(result.detectedLanguage).toBe('en');
    expect(result.duration).toBeCloseTo(2.786, 2);
    expect(result.speakerCount).toBe(1);
    expect(result.words.every((word) => word.speaker === 'SPEAKER_00')).toBe(true);
    const percents = progress.map(([percent]) => percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.at(-1)).toBe(100);
    expect(new Set(progress.map(([, stage]) => stage))).toEqual(
      new Set(['decode', 'recognition', 'diarization', 'assembly']),
    );
  });

  it('keeps word times monotonic and inside the file across several chunks', async () => {
    const result = await pipeline.run(request('lhotse/2412-153948-0000.flac'));
    const reference = fs.readFileSync(testAudio('lhotse/2412-153948-0000.txt'), 'utf8');
    expect(wordErrorRate(reference, result.text).rate).toBeLessThan(0.4);
    let previousStart = 0;
    for (const word of result.words) {
      expect(word.start).toBeGreaterThanOrEqual(previousStart);
      expect(word.end).toBeGreaterThan(word.start);
      expect(word.end).toBeLessThanOrEqual(result.duration + 0.01);
      previousStart = word.start;
    }
  });

  it('transcribes the TIMIT sentence under the measured WER bound', async () => {
    const result = await pipeline.run(request('coqui-stt/LDC93S1.wav', { language: 'en' }));
    const reference = fs.readFileSync(testAudio('coqui-stt/LDC93S1.txt'), 'utf8');
    expect(result.detectedLanguage).toBe('en');
    expect(wordErrorRate(reference, result.text).rate).toBeLessThan(0.8);
  });

  it.each([
    ['kaldi-gstreamer-server/silence.wav', 'NO_SPOKEN_AUDIO'],
    ['lhotse/big_buck_bunny_small.mp4', 'NO_SPOKEN_AUDIO'],
    ['pocketsphinx/null.wav', 'AUDIO_TOO_SHORT'],
    ['pocketsphinx/evil.wav', 'DECODE_FAILED'],
  ])('fails %s with %s', async (clip, code) => {
    expect(await failureCode(clip)).toBe(code);
  });

  it('gives the same words with chunks recognised in parallel on threads as one after another', async () => {
    const pool = new RecognizerThreadPool(
      { kind: 'pocketsphinx', settings: settings.pocketsphinx },
      2,
      POCKETSPHINX_IDENTITY,
    );
    try {
      const parallel = new TranscriptionPipeline({
        recognizer: pool,
        speechDetector: new SileroSpeechDetector(settings.speech),
        diarizer: singleSpeaker,
        settings: { ...settings, parallelism: 2 },
      });
      const clip = request('kaldi-gstreamer-server/test_with_silence.wav');
      const [serial, concurrent] = [await pipeline.run(clip), await parallel.run(clip)];
      expect(pool.threadCount).toBe(2);
      expect(concurrent.words).toEqual(serial.words);
      expect(concurrent.text).toBe(serial.text);
    } finally {
      await pool.close();
    }
  });

  it('fails audio longer than the maximum from its stated duration, and while decoding when none is stated', async () => {
    const short = (extra: Partial<typeof settings>) =>
      new TranscriptionPipeline({
        recognizer,
        speechDetector: new SileroSpeechDetector(settings.speech),
        diarizer: singleSpeaker,
        settings: { ...settings, maxAudioSeconds: 5, ...extra },
      }).run(request('lhotse/2412-153948-0000.flac'));
    await expect(short({})).rejects.toMatchObject({ code: 'AUDIO_TOO_LONG' });
    // No ffprobe: nothing states the duration, so the decoded length is what trips the limit.
    await expect(
      short({ audio: { ...settings.audio, ffprobePath: '/nonexistent/ffprobe' } }),
    ).rejects.toMatchObject({
      code: 'AUDIO_TOO_LONG',
    });
  });

  it('rejects a language PocketSphinx does not speak before decoding', async () => {
    expect(await failureCode('pocketsphinx/evil.wav', { language: 'de' })).toBe('UNSUPPORTED_LANGUAGE');
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    const running = pipeline.run(request('lhotse/2412-153948-0000.flac'), {
      signal: controller.signal,
      onProgress: (percent) => {
        if (percent >= 10) controller.abort();
      },
    });
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('multichannel: recognises each channel alone, labels words by channel, and a silent channel adds nothing', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stt-multichannel-'));
    const stereo = path.join(folder, 'left-speech-right-silence.wav');
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-i', testAudio('pocketsphinx/goforward.wav')],
      ...['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-filter_complex'],
      '[0][1]join=inputs=2:channel_layout=stereo[out]',
      ...['-map', '[out]', '-t', '2.786', stereo],
    ]);
    try {
      const result = await pipeline.run({
        ...request('pocketsphinx/goforward.wav'),
        audioPath: stereo,
        channels: 2,
      });
      expect(result.text).toBe('Go forward ten meters.');
      expect(result.words.every((word) => word.speaker === 'CHANNEL_1')).toBe(true);
      expect(result.speakerCount).toBe(1);
      expect(result.duration).toBeCloseTo(2.786, 2);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
