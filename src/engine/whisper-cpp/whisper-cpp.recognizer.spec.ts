import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { testAudio } from '../../../test/support/shared-paths';
import { EngineError, RecognitionOutput, RecognizedWord } from '../engine.types';
import { syntheticWhisperModel } from './testing/synthetic-whisper-model';
import { requireWhisperCppBinDir, decodeClip, whiteNoise } from './testing/whisper-cpp.testing';
import { WhisperCppRecognizer } from './whisper-cpp.recognizer';
import { WhisperCppRecognizerSettings, whisperCliPath } from './whisper-cpp.settings';

/*
 * Real whisper-cli runs with the synthetic model (testing/synthetic-whisper-model.ts): it always detects `de` and decodes
 * " w100 w200 w300" as one segment 0–2.5 s, split evenly (0.83 s per token). whisper.cpp then trims a word's
 * edge that lies in low-energy audio, so on jfk.wav (speech starts at ~0.3 s) w100 starts at 0.34 and w300
 * ends at 2.10; on white noise nothing is trimmed.
 */
jest.setTimeout(60_000);

const MODEL = syntheticWhisperModel();
const JFK = testAudio('whisper.cpp/jfk.wav');

const binDir = requireWhisperCppBinDir(process.env.WHISPER_CPP_BIN_DIR);
let workDir: string;
let jfk: Float32Array;

function settings(extra: Partial<WhisperCppRecognizerSettings> = {}): WhisperCppRecognizerSettings {
  return { binaryPath: whisperCliPath(binDir), modelPath: MODEL, threads: 2, tmpDir: workDir, ...extra };
}

function options(language = 'auto', vocabulary: string[] = [], signal = new AbortController().signal) {
  return { language, vocabulary, signal };
}

function expectWords(actual: RecognizedWord[], expected: Array<[string, number, number]>): void {
  expect(actual.map((w) => w.word)).toEqual(expected.map(([word]) => word));
  actual.forEach((w, i) => {
    expect(w.start).toBeCloseTo(expected[i][1], 2);
    expect(w.end).toBeCloseTo(expected[i][2], 2);
  });
}

/** whisper-cli processes still running with a file of this test's temp dir on their command line. */
function runningCliProcesses(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('whisper-cli') && cmdline.includes(workDir)) pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/** The chunk's WAV is written before whisper-cli starts: wait until the process is really there. */
async function waitForCliProcess(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (runningCliProcesses().length === 0) {
    if (Date.now() > deadline) throw new Error('whisper-cli did not start within 10 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  // Let it get into model loading/encoding.
  await new Promise((r) => setTimeout(r, 100));
}

async function expectEngineError(
  promise: Promise<unknown>,
  code: string,
  message: RegExp,
): Promise<EngineError> {
  const err: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  const engineError = err as EngineError;
  expect(engineError.code).toBe(code);
  expect(engineError.message).toMatch(message);
  return engineError;
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'whisper-cpp-spec-'));
  jfk = await decodeClip(JFK);
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('WhisperCppRecognizer with whisper-cli and the synthetic model', () => {
  it('reads words with token timings and the detected language from a real clip', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    const out = await recognizer.recognize({ samples: jfk, offset: 0 }, options());
    expect(out.detectedLanguage).toBe('de');
    expectWords(out.words, [
      ['w100', 0.34, 0.83],
      ['w200', 0.83, 1.66],
      ['w300', 1.66, 2.1],
    ]);
    // Temp files are cleaned up after each chunk.
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('returns words in file time (chunk offset added)', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    const out = await recognizer.recognize({ samples: jfk, offset: 12.5 }, options());
    expectWords(out.words, [
      ['w100', 12.84, 13.33],
      ['w200', 13.33, 14.16],
      ['w300', 14.16, 14.6],
    ]);
  });

  it('gives the untrimmed even split on audio without low-energy edges', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    const out = await recognizer.recognize({ samples: whiteNoise(5), offset: 0 }, options());
    expectWords(out.words, [
      ['w100', 0, 0.83],
      ['w200', 0.83, 1.66],
      ['w300', 1.66, 2.5],
    ]);
  });

  it('keeps words inside a short chunk and answers an empty one without running whisper-cli', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    // Whisper pads to 30 s and the synthetic decoder still emits words up to 2.5 s.
    const short = await recognizer.recognize({ samples: jfk.subarray(0, 8000), offset: 4 }, options());
    expect(short.words.map((w) => w.word)).toEqual(['w100', 'w200', 'w300']);
    for (const w of short.words) {
      expect(w.start).toBeGreaterThanOrEqual(4);
      expect(w.end).toBeLessThanOrEqual(4.5);
      expect(w.end).toBeGreaterThanOrEqual(w.start);
    }
    const empty = await recognizer.recognize({ samples: new Float32Array(0), offset: 4 }, options('en'));
    expect(empty).toEqual({ words: [], detectedLanguage: 'en' });
  });

  it('passes an explicit language through to whisper.cpp', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    const fr = await recognizer.recognize({ samples: jfk, offset: 0 }, options('fr'));
    expect(fr.detectedLanguage).toBe('fr');
    expect(fr.words.map((w) => w.word)).toEqual(['w100', 'w200', 'w300']);
    // The service says jv for Javanese, whisper.cpp says jw: mapped both ways.
    const jv = await recognizer.recognize({ samples: jfk, offset: 0 }, options('jv'));
    expect(jv.detectedLanguage).toBe('jv');
  });

  it('rejects a language Whisper does not know before starting a process', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    await expectEngineError(
      recognizer.recognize({ samples: jfk, offset: 0 }, options('xx')),
      'UNSUPPORTED_LANGUAGE',
      /xx/,
    );
  });

  it('passes the vocabulary as the prompt, which reaches the decoder without breaking it', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    const plain = await recognizer.recognize({ samples: jfk, offset: 0 }, options());
    const prompted = await recognizer.recognize(
      { samples: jfk, offset: 0 },
      options('auto', ['Kennedy', 'ask not', 'Grafana']),
    );
    // The synthetic decoder is steered by token position, so prompt tokens shift what it emits: a different
    // but still well-formed result proves the prompt got through.
    expect(prompted.detectedLanguage).toBe('de');
    expect(prompted.words.length).toBeGreaterThan(0);
    for (const w of prompted.words) {
      expect(w.word).toMatch(/^w\d+$/);
      expect(w.end).toBeGreaterThanOrEqual(w.start);
    }
    expect(prompted.words).not.toEqual(plain.words);

    // A 500-word vocabulary (the API's maximum) is cut to the prompt budget rather than failing.
    const many = Array.from({ length: 500 }, (_, i) => `term${i}`);
    const big = await recognizer.recognize({ samples: jfk, offset: 0 }, options('auto', many));
    expect(big.detectedLanguage).toBe('de');
  });

  it('kills whisper-cli at once on abort and rejects with the abort reason', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    const controller = new AbortController();
    // 120 s of audio = four 30 s windows: several seconds of work, so the abort lands mid-run.
    const running = recognizer.recognize(
      { samples: whiteNoise(120), offset: 0 },
      options('auto', [], controller.signal),
    );
    await waitForCliProcess();
    // The process really got the model, language, threads and JSON options.
    const [pid] = runningCliProcesses();
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toEqual(expect.arrayContaining(['-m', MODEL, '-l', 'auto', '-t', '2', '-ojf']));
    expect(argv[argv.indexOf('-t') + 1]).toBe('2');
    const started = Date.now();
    const reason = new Error('job cancelled');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(500);
    // SIGKILL is asynchronous; the process is gone within moments.
    await new Promise((r) => setTimeout(r, 200));
    expect(runningCliProcesses()).toEqual([]);
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    const controller = new AbortController();
    controller.abort();
    await expect(
      recognizer.recognize({ samples: jfk, offset: 0 }, options('auto', [], controller.signal)),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('times out a chunk that runs too long', async () => {
    const recognizer = new WhisperCppRecognizer(settings({ timeoutMs: 300 }));
    await expectEngineError(
      recognizer.recognize({ samples: whiteNoise(120), offset: 0 }, options()),
      'ENGINE_TIMEOUT',
      /300 ms/,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(runningCliProcesses()).toEqual([]);
  });

  it('fails cleanly on a missing model file', async () => {
    const recognizer = new WhisperCppRecognizer(settings({ modelPath: '/nonexistent/ggml-base.bin' }));
    await expectEngineError(
      recognizer.recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      /model file not found: \/nonexistent\/ggml-base\.bin/,
    );
  });

  it('fails cleanly on a corrupt or truncated model', async () => {
    const corrupt = path.join(workDir, '..', `corrupt-${process.pid}.bin`);
    const truncated = path.join(workDir, '..', `truncated-${process.pid}.bin`);
    await writeFile(corrupt, Buffer.alloc(4096, 7));
    await writeFile(truncated, readFileSync(MODEL).subarray(0, 3_000_000));
    try {
      const bad = new WhisperCppRecognizer(settings({ modelPath: corrupt }));
      await expectEngineError(
        bad.recognize({ samples: jfk, offset: 0 }, options()),
        'ENGINE_FAILED',
        /could not load model .*corrupt.*bad magic/,
      );
      const cut = new WhisperCppRecognizer(settings({ modelPath: truncated }));
      await expectEngineError(
        cut.recognize({ samples: jfk, offset: 0 }, options()),
        'ENGINE_FAILED',
        /could not load model .*not all tensors loaded/,
      );
    } finally {
      await rm(corrupt, { force: true });
      await rm(truncated, { force: true });
    }
  });

  it('reports a nonzero exit with the tail of stderr', async () => {
    // An operator's bad extra argument: whisper.cpp refuses the audio context and exits with 10.
    const recognizer = new WhisperCppRecognizer(settings({ extraArgs: ['-ac', '99999'] }));
    await expectEngineError(
      recognizer.recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      /whisper-cli exited with code 10: .*audio_ctx is larger than the maximum/,
    );
  });

  it('reports a run that ends without a result', async () => {
    // whisper-cli exits 0 but writes nothing when its arguments are wrong (here a later, unknown -l).
    const recognizer = new WhisperCppRecognizer(settings({ extraArgs: ['-l', 'xx'] }));
    const err = await expectEngineError(
      recognizer.recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      /whisper-cli wrote no result: .*unknown language 'xx'/,
    );
    expect(err.message).not.toMatch(/usage:/);
  });

  it('names the build script when whisper-cli is missing', async () => {
    const recognizer = new WhisperCppRecognizer(settings({ binaryPath: '/nonexistent/whisper-cli' }));
    await expectEngineError(
      recognizer.recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      /scripts\/build-whisper-cpp\.sh/,
    );
  });

  it('close() kills running chunks and refuses new ones', async () => {
    const recognizer = new WhisperCppRecognizer(settings());
    const running: Promise<RecognitionOutput> = recognizer.recognize(
      { samples: whiteNoise(120), offset: 0 },
      options(),
    );
    await waitForCliProcess();
    await recognizer.close();
    await expect(running).rejects.toMatchObject({ code: 'ENGINE_FAILED' });
    await expectEngineError(
      recognizer.recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      /closed/,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(runningCliProcesses()).toEqual([]);
  });
});
