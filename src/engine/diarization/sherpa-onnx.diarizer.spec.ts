import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineError, type Pcm } from '../engine.types';
import { classicalDiarizer } from './classical.descriptor';
import { sherpaOnnxDiarizer } from './sherpa-onnx.descriptor';
import { diarizeInStretches, wholeFile } from './diarize-stretches';
import { ClassicalDiarizer } from './classical.diarizer';
import {
  DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS,
  DiarizerConfigurationError,
  SherpaOnnxDiarizer,
  type SherpaDiarizationConfig,
  type SherpaDiarizationModule,
  type SherpaDiarizationSegment,
} from './sherpa-onnx.diarizer';

const pcm: Pcm = { samples: new Float32Array(16000 * 5), sampleRate: 16000 };
const speech = [{ start: 0, end: 5 }];

/** Stand-in for the native module: records the configs it gets and answers with canned segments. */
function fakeModule(answer: (clusters: number) => SherpaDiarizationSegment[]): {
  module: SherpaDiarizationModule;
  clusterCalls: number[];
  config: SherpaDiarizationConfig[];
  sampleCounts: number[];
} {
  const clusterCalls: number[] = [];
  const sampleCounts: number[] = [];
  const config: SherpaDiarizationConfig[] = [];
  class FakeDiarization {
    readonly sampleRate = 16000;
    private clusters = -1;
    constructor(initial: SherpaDiarizationConfig) {
      config.push(initial);
    }
    setConfig(update: { clustering: { numClusters: number } }): void {
      this.clusters = update.clustering.numClusters;
    }
    process(samples: Float32Array): SherpaDiarizationSegment[] {
      clusterCalls.push(this.clusters);
      sampleCounts.push(samples.length);
      return answer(this.clusters);
    }
  }
  return { module: { OfflineSpeakerDiarization: FakeDiarization }, clusterCalls, config, sampleCounts };
}

describe('SherpaOnnxDiarizer', () => {
  let directory: string;
  let models: { segmentationModelPath: string; embeddingModelPath: string };

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'diarizer-'));
    models = {
      segmentationModelPath: path.join(directory, 'segmentation.onnx'),
      embeddingModelPath: path.join(directory, 'embedding.onnx'),
    };
    // Placeholder files: only their presence is checked before the (faked) native module is called.
    fs.writeFileSync(models.segmentationModelPath, '');
    fs.writeFileSync(models.embeddingModelPath, '');
  });

  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('maps sherpa segments to turns numbered by first appearance', async () => {
    const fake = fakeModule(() => [
      { start: 2.5, end: 4, speaker: 0 },
      { start: 0.1, end: 2.4, speaker: 3 },
      { start: 4.2, end: 4.9, speaker: 3 },
    ]);
    const diarizer = new SherpaOnnxDiarizer(
      { ...DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS, ...models },
      () => fake.module,
    );
    await expect(diarizeInStretches(diarizer, pcm, speech, wholeFile(pcm), {})).resolves.toEqual([
      { start: 0.1, end: 2.4, speaker: 'SPEAKER_00' },
      { start: 2.5, end: 4, speaker: 'SPEAKER_01' },
      { start: 4.2, end: 4.9, speaker: 'SPEAKER_00' },
    ]);
    expect(fake.config[0].segmentation.pyannote.model).toBe(models.segmentationModelPath);
    expect(fake.config[0].embedding.model).toBe(models.embeddingModelPath);
  });

  it('runs on the stretches back to back and maps its segments to file time, split at stretch joins', async () => {
    const fake = fakeModule(() => [
      { start: 1.5, end: 3, speaker: 7 },
      { start: 3.5, end: 4.5, speaker: 2 },
    ]);
    const diarizer = new SherpaOnnxDiarizer(
      { ...DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS, ...models },
      () => fake.module,
    );
    const long: Pcm = { samples: new Float32Array(16000 * 15), sampleRate: 16000 };
    const stretches = [
      { start: 0, end: 2 },
      { start: 10, end: 13 },
    ];
    const turns = await diarizeInStretches(diarizer, long, [{ start: 0.5, end: 12 }], stretches, {});
    // 2 s + 3 s reach sherpa, not the 15 s file: the silence between stretches is never held.
    expect(fake.sampleCounts).toEqual([16000 * 5]);
    expect(turns).toEqual([
      { start: 1.5, end: 2, speaker: 'SPEAKER_00' },
      { start: 10, end: 11, speaker: 'SPEAKER_00' },
      { start: 11.5, end: 12.5, speaker: 'SPEAKER_01' },
    ]);
  });

  it('returns no turns without speech and does not run sherpa', async () => {
    const fake = fakeModule(() => [{ start: 0, end: 1, speaker: 0 }]);
    const diarizer = new SherpaOnnxDiarizer(
      { ...DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS, ...models },
      () => fake.module,
    );
    await expect(diarizeInStretches(diarizer, pcm, [], wholeFile(pcm), {})).resolves.toEqual([]);
    expect(fake.clusterCalls).toEqual([]);
  });

  it('passes an exact count as the cluster count and a range as a bound on a free run', async () => {
    const fake = fakeModule((clusters) =>
      Array.from({ length: clusters > 0 ? clusters : 5 }, (_, i) => ({ start: i, end: i + 0.5, speaker: i })),
    );
    const diarizer = new SherpaOnnxDiarizer(
      { ...DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS, ...models },
      () => fake.module,
    );
    expect(
      new Set(
        (await diarizeInStretches(diarizer, pcm, speech, wholeFile(pcm), { exact: 2 })).map((t) => t.speaker),
      ).size,
    ).toBe(2);
    expect(
      new Set(
        (await diarizeInStretches(diarizer, pcm, speech, wholeFile(pcm), { min: 2, max: 3 })).map(
          (t) => t.speaker,
        ),
      ).size,
    ).toBe(3);
    expect(fake.clusterCalls).toEqual([2, -1, 3]);
  });

  it('fails with ENGINE_FAILED naming the missing model file', async () => {
    const diarizer = new SherpaOnnxDiarizer({
      ...DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS,
      segmentationModelPath: path.join(directory, 'nope.onnx'),
      embeddingModelPath: models.embeddingModelPath,
    });
    const failure = diarizeInStretches(diarizer, pcm, speech, wholeFile(pcm), {});
    await expect(failure).rejects.toBeInstanceOf(EngineError);
    await expect(failure).rejects.toMatchObject({
      code: 'ENGINE_FAILED',
      message: expect.stringContaining('nope.onnx'),
    });
  });

  it('wraps a native failure (here: empty model files) in an EngineError', async () => {
    const diarizer = new SherpaOnnxDiarizer({ ...DEFAULT_SHERPA_ONNX_DIARIZER_SETTINGS, ...models }, () => {
      throw new Error('Please check your config!');
    });
    await expect(diarizeInStretches(diarizer, pcm, speech, wholeFile(pcm), {})).rejects.toMatchObject({
      code: 'ENGINE_FAILED',
    });
  });
});

describe('diarizer descriptors', () => {
  it('build the classical diarizer, with overrides of its tuned defaults', () => {
    expect(classicalDiarizer.create({})).toBeInstanceOf(ClassicalDiarizer);
    expect(classicalDiarizer.create({ mergeThreshold: 1 }).name).toBe('classical');
  });

  it('refuse a sherpa-onnx setup whose models are missing, at construction', () => {
    expect(() => sherpaOnnxDiarizer.create({ segmentationModelPath: '', embeddingModelPath: '' })).toThrow(
      DiarizerConfigurationError,
    );
    expect(() =>
      sherpaOnnxDiarizer.create({ segmentationModelPath: '/no/seg.onnx', embeddingModelPath: '' }),
    ).toThrow(
      /segmentation model not found at \/no\/seg\.onnx; speaker-embedding model path is not configured/,
    );
  });
});
