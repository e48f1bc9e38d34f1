import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SHARED_DIR } from '../shared-paths';
import {
  float32ToFloat16Bits,
  NumpyDefaultRng,
  seedSequenceState,
  sha256,
  SYNTHETIC_WHISPER_MODEL_SHA256,
  syntheticWhisperModel,
  syntheticWhisperModelBytes,
} from './synthetic-whisper-model';

/*
 * The generator must write exactly the file make_synthetic_ggml_whisper.py writes with NumPy (`micro det`):
 * that file's behaviour in whisper.cpp is what the Whisper tests assert. What whisper.cpp does with it is
 * proven by whisper-cpp.recognizer.integration-spec.ts and openai-compatible.recognizer.integration-spec.ts, which run on it.
 */
jest.setTimeout(60_000);

const SHARED_MODEL = path.join(SHARED_DIR, 'models', 'whisper-det-micro.bin');

describe('synthetic Whisper model', () => {
  let generated: Buffer;

  beforeAll(() => {
    generated = syntheticWhisperModelBytes();
  });

  it('is the 8,039,521-byte file with the pinned sha256', () => {
    expect(generated.length).toBe(8_039_521);
    expect(sha256(generated)).toBe(SYNTHETIC_WHISPER_MODEL_SHA256);
  });

  // The one allowed skip: the shared folder is not part of a fresh clone.
  (fs.existsSync(SHARED_MODEL) ? it : it.skip)(
    'is byte-identical to ../shared/models/whisper-det-micro.bin (skipped only when ../shared is absent)',
    () => {
      expect(sha256(generated)).toBe(sha256(fs.readFileSync(SHARED_MODEL)));
    },
  );

  it('starts with the ggml header and the micro dimensions', () => {
    expect(generated.readUInt32LE(0)).toBe(0x67676d6c);
    const header = Array.from({ length: 11 }, (_, i) => generated.readInt32LE(4 + 4 * i));
    expect(header).toEqual([51865, 1500, 64, 2, 1, 448, 64, 2, 1, 80, 1]);
  });
});

describe('NumPy default_rng(0) reproduction', () => {
  // Values printed by NumPy 2.4: SeedSequence(0).generate_state(4, np.uint64), default_rng(0).bit_generator
  // .state and default_rng(0).standard_normal(5).
  it('derives the PCG64 seed and state as NumPy does', () => {
    expect(seedSequenceState(0)).toEqual([
      15793235383387715774n,
      12390638538380655177n,
      2361836109651742017n,
      3188717715514472916n,
    ]);
    expect(new NumpyDefaultRng(0).stateAndInc).toEqual({
      state: 35399562948360463058890781895381311971n,
      inc: 87136372517582989555478159403783844777n,
    });
  });

  it('draws the same standard normals', () => {
    const rng = new NumpyDefaultRng(0);
    expect(Array.from({ length: 5 }, () => rng.standardNormal())).toEqual([
      0.1257302210933933, -0.1321048632913019, 0.6404226504432821, 0.10490011715303971, -0.535669373161111,
    ]);
  });
});

describe('float32ToFloat16Bits', () => {
  it.each([
    [1, 0x3c00],
    [-2, 0xc000],
    [0, 0x0000],
    [65504, 0x7bff],
    [65520, 0x7c00], // halfway to the next binade: rounds to even = infinity
    [Infinity, 0x7c00],
    [1 + 2 ** -11, 0x3c00], // tie, rounds to the even significand
    [1 + 3 * 2 ** -11, 0x3c02], // tie, rounds up to even
    [1 + 2 ** -11 + 2 ** -20, 0x3c01], // just above the tie
    [2 ** -14, 0x0400], // smallest normal half
    [2 ** -24, 0x0001], // smallest subnormal half
    [2 ** -25, 0x0000], // tie between 0 and 2^-24: even is 0
    [3 * 2 ** -25, 0x0002], // tie between 1 and 2 ulps: even is 2
    [-(2 ** -14 - 2 ** -25), 0x8400], // rounds up into the smallest normal
  ])('%p → %p', (value, bits) => {
    expect(float32ToFloat16Bits(value)).toBe(bits);
  });

  it('keeps NaN a NaN', () => {
    const bits = float32ToFloat16Bits(NaN);
    expect(bits & 0x7c00).toBe(0x7c00);
    expect(bits & 0x03ff).not.toBe(0);
  });
});

describe('syntheticWhisperModel (cached file)', () => {
  let cacheDir: string;

  beforeEach(() => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'synthetic-model-cache-'));
  });
  afterEach(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

  it('writes the model once and reuses it', () => {
    const first = syntheticWhisperModel(cacheDir);
    expect(sha256(fs.readFileSync(first))).toBe(SYNTHETIC_WHISPER_MODEL_SHA256);
    const written = fs.statSync(first).mtimeMs;
    expect(syntheticWhisperModel(cacheDir)).toBe(first);
    expect(fs.statSync(first).mtimeMs).toBe(written);
    expect(fs.readdirSync(cacheDir)).toEqual([path.basename(first)]); // no temp file left behind
  });

  it('replaces a damaged cached file', () => {
    const file = syntheticWhisperModel(cacheDir);
    fs.writeFileSync(file, 'not a model');
    expect(syntheticWhisperModel(cacheDir)).toBe(file);
    expect(sha256(fs.readFileSync(file))).toBe(SYNTHETIC_WHISPER_MODEL_SHA256);
  });
});
