import * as fs from 'node:fs';
import { sharedAudio } from '../../../test/support/shared-paths';
import { defaultEngineSettings, type EngineSettings } from '../engine-settings';
import type { TranscribeRequest } from '../engine.types';
import { defaultChildScriptPath, EngineRunner } from './engine-runner';

const request = (clip: string): TranscribeRequest => ({
  audioPath: sharedAudio(clip),
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

  it('fails with ENGINE_TIMEOUT when the job runs too long', async () => {
    await expect(
      new EngineRunner(settings({ timeoutMs: 50 })).run(request('lhotse/2412-153948-0000.flac')),
    ).rejects.toMatchObject({ code: 'ENGINE_TIMEOUT' });
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
