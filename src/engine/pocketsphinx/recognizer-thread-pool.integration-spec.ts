import * as fs from 'node:fs';
import { testAudio } from '../../../test/support/shared-paths';
import { decodeToPcm } from '../audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../engine-settings';
import type { RecognitionOptions } from '../engine.types';
import { POCKETSPHINX_IDENTITY } from './pocketsphinx-recognizer';
import { recognizerThreadScriptPath, RecognizerThreadPool } from './recognizer-thread-pool';

jest.setTimeout(120_000);

describe('RecognizerThreadPool (PocketSphinx on worker threads)', () => {
  const settings = defaultEngineSettings();
  const options: RecognitionOptions = {
    language: 'en',
    vocabulary: [],
    signal: new AbortController().signal,
  };
  let pools: RecognizerThreadPool[] = [];
  const pool = (size: number, pocketsphinx = settings.pocketsphinx) => {
    const created = new RecognizerThreadPool(
      { kind: 'pocketsphinx', settings: pocketsphinx },
      size,
      POCKETSPHINX_IDENTITY,
    );
    pools.push(created);
    return created;
  };

  beforeAll(() => {
    if (!fs.existsSync(recognizerThreadScriptPath()))
      throw new Error(`${recognizerThreadScriptPath()} is missing: npm run build`);
  });
  afterEach(async () => {
    await Promise.all(pools.map((created) => created.close()));
    pools = [];
  });

  it('decodes concurrent chunks on separate threads, each answer in its own file time', async () => {
    const goforward = await decodeToPcm(testAudio('pocketsphinx/goforward.wav'));
    const recognizer = pool(2);
    const [first, second, third] = await Promise.all([
      recognizer.recognize({ samples: goforward.samples, offset: 0 }, options),
      recognizer.recognize({ samples: goforward.samples, offset: 100 }, options),
      recognizer.recognize({ samples: goforward.samples, offset: 200 }, options),
    ]);
    expect(recognizer.threadCount).toBe(2);
    for (const [output, offset] of [
      [first, 0],
      [second, 100],
      [third, 200],
    ] as const) {
      expect(output.words.map((word) => word.word).join(' ')).toBe(
        first.words.map((word) => word.word).join(' '),
      );
      expect(output.words[0].start).toBeCloseTo(first.words[0].start + offset, 5);
    }
  });

  it('starts threads only when chunks wait for one', async () => {
    const goforward = await decodeToPcm(testAudio('pocketsphinx/goforward.wav'));
    const recognizer = pool(4);
    await recognizer.recognize({ samples: goforward.samples, offset: 0 }, options);
    await recognizer.recognize({ samples: goforward.samples, offset: 0 }, options);
    expect(recognizer.threadCount).toBe(1);
  });

  it('fails the chunk with ENGINE_FAILED when the recogniser cannot start on its thread', async () => {
    const recognizer = pool(1, { ...settings.pocketsphinx, acousticModelPath: '/nonexistent/model' });
    await expect(
      recognizer.recognize({ samples: new Float32Array(16000), offset: 0 }, options),
    ).rejects.toMatchObject({
      code: 'ENGINE_FAILED',
    });
  });

  it('refuses work after close() and rejects what was waiting', async () => {
    const recognizer = pool(1);
    const waiting = recognizer
      .recognize({ samples: new Float32Array(16000 * 5), offset: 0 }, options)
      .catch((error: unknown) => error);
    await recognizer.close();
    expect(await waiting).toMatchObject({ code: 'ENGINE_FAILED' });
    await expect(
      recognizer.recognize({ samples: new Float32Array(16000), offset: 0 }, options),
    ).rejects.toMatchObject({
      code: 'ENGINE_FAILED',
    });
    expect(recognizer.threadCount).toBe(0);
  });
});
