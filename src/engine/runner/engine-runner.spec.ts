import * as fs from 'node:fs';
import { testAudio } from '../../../test/support/shared-paths';
import { defaultEngineSettings, type EngineSettings } from '../engine-settings';
import type { TranscribeRequest } from '../engine.types';
import { defaultChildScriptPath, EngineRunner } from './engine-runner';

const request = (clip: string): TranscribeRequest => ({
  audioPath: testAudio(clip),
  model: 'standard',
  language: 'auto',
  vocabulary: [],
  speakers: {},
});

describe('EngineRunner (child process)', () => {
  beforeAll(() => {
    // The child is the compiled dist/ script: `npm test` builds first (pretest); run `npm run build` before jest alone.
    if (!fs.existsSync(defaultChildScriptPath()))
      throw new Error(`${defaultChildScriptPath()} is missing: npm run build`);
  });

  const settings = (overrides: Partial<EngineSettings> = {}): EngineSettings => ({
    ...defaultEngineSettings(),
    ...overrides,
  });

  it('transcribes in a child process and forwards progress', async () => {
    const progress: number[] = [];
    const result = await new EngineRunner(settings()).run(request('pocketsphinx/goforward.wav'), {
      onProgress: (percent) => progress.push(percent),
    });
    expect(result.text).toBe('go forward ten meters');
    expect(result.speakerCount).toBe(1);
    expect(progress.at(-1)).toBe(100);
  });

  it('passes engine errors through with their code', async () => {
    await expect(new EngineRunner(settings()).run(request('pocketsphinx/evil.wav'))).rejects.toMatchObject({
      code: 'DECODE_FAILED',
    });
  });

  it('turns a native crash of the child into ENGINE_FAILED and survives it', async () => {
    const runner = new EngineRunner(settings({ crashForTesting: true }));
    await expect(runner.run(request('pocketsphinx/goforward.wav'))).rejects.toMatchObject({
      code: 'ENGINE_FAILED',
      message: expect.stringContaining('signal SIGABRT'),
    });
    const after = await new EngineRunner(settings()).run(request('pocketsphinx/goforward.wav'));
    expect(after.text).toBe('go forward ten meters');
  });

  it('fails with ENGINE_TIMEOUT when the job outlasts its deadline', async () => {
    await expect(
      new EngineRunner(settings({ timeout: { baseMs: 50, perAudioMinuteMs: 0 } })).run(
        request('lhotse/2412-153948-0000.flac'),
      ),
    ).rejects.toMatchObject({ code: 'ENGINE_TIMEOUT' });
  });

  it('extends the deadline by the allowance per audio minute once the duration is known', async () => {
    // 300 ms alone is not enough to start the child and transcribe 11.7 s; the allowance for 11.7 s of audio is.
    const result = await new EngineRunner(
      settings({ timeout: { baseMs: 300, perAudioMinuteMs: 10 * 60 * 1000 } }),
    ).run(request('lhotse/2412-153948-0000.flac'));
    expect(result.duration).toBeCloseTo(11.66, 1);
  });

  it('kills the child when aborted', async () => {
    const controller = new AbortController();
    const running = new EngineRunner(settings()).run(request('lhotse/2412-153948-0000.flac'), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
  });
});
