import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { cpuTicks } from '../../../test/support/process-table';
import { testAudio } from '../../../test/support/shared-paths';
import { EngineError, RecognitionOutput, RecognizedWord } from '../engine.types';
import { syntheticWhisperModel } from '../../../test/support/whisper-cpp/synthetic-whisper-model';
import {
  requireWhisperCppBinDir,
  decodeClip,
  whiteNoise,
} from '../../../test/support/whisper-cpp/whisper-cpp.testing';
import { WhisperCppPoolOptions, WhisperCppRecognizer } from './whisper-cpp.recognizer';
import { WhisperCppRecognizerSettings, whisperServerPath } from './whisper-cpp.settings';
import { guardedServerCommand } from './whisper-server.process';

/*
 * A real whisper-server with the synthetic model (test/support/whisper-cpp/synthetic-whisper-model.ts): it always detects `de` and decodes
 * " w100 w200 w300" as one segment 0–2.5 s, split evenly (0.83 s per token). whisper.cpp then trims a word's
 * edge that lies in low-energy audio, so on jfk.wav (speech starts at ~0.3 s) w100 starts at 0.34 and w300
 * ends at 2.10; on white noise nothing is trimmed.
 *
 * The model is reached through a symlink inside this test's temp dir, so the processes found by
 * serverProcesses() are this test's own (other suites may run whisper-server with the same model).
 */
jest.setTimeout(60_000);

const SHARED_MODEL = syntheticWhisperModel();
const JFK = testAudio('whisper.cpp/jfk.wav');

const binDir = requireWhisperCppBinDir(process.env.WHISPER_CPP_BIN_DIR);
let workDir: string;
let model: string;
let jfk: Float32Array;

function settings(extra: Partial<WhisperCppRecognizerSettings> = {}): WhisperCppRecognizerSettings {
  return { binaryPath: whisperServerPath(binDir), modelPath: model, threads: 2, ...extra };
}

function recognizer(
  extra: Partial<WhisperCppRecognizerSettings> = {},
  pool: WhisperCppPoolOptions = {},
): WhisperCppRecognizer {
  const created = new WhisperCppRecognizer(settings(extra), pool);
  open.push(created);
  return created;
}
const open: WhisperCppRecognizer[] = [];

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

/**
 * Processes with this test's temp dir on their command line: the whisper-server processes, their `sh`
 * guards and the guards' watchers. Zombies (already exited, not yet reaped) do not count.
 */
function serverProcesses(): Array<{ pid: number; argv: string[] }> {
  const found: Array<{ pid: number; argv: string[] }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (state !== 'Z' && cmdline.includes(workDir) && !cmdline.includes('jest')) {
        found.push({ pid: Number(entry), argv: cmdline.split('\0') });
      }
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** The whisper-server processes themselves (not their guards). */
function servers(): Array<{ pid: number; argv: string[] }> {
  return serverProcesses().filter((p) => path.basename(p.argv[0]) === 'whisper-server');
}

/** Polls until `condition` holds; the 30 s deadline only bounds a hang (server starts are slow under load). */
async function waitForAsync(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 30 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const waitFor = (what: string, condition: () => boolean): Promise<void> =>
  waitForAsync(what, () => Promise.resolve(condition()));

/**
 * Waits until `count` servers run, answer /health (model loaded, taking requests) and are computing a chunk:
 * an idle server uses no CPU, so CPU time growing after the health check is the chunk's request at work.
 */
async function waitUntilServing(count: number): Promise<void> {
  await waitFor(`${count} server(s)`, () => servers().length === count);
  for (const { pid, argv } of servers()) {
    const url = `http://127.0.0.1:${argv[argv.indexOf('--port') + 1]}/health`;
    await waitForAsync(`server ${pid} answering /health`, () =>
      fetch(url).then(
        (res) => res.ok,
        () => false,
      ),
    );
    const ready = cpuTicks(pid) ?? 0;
    await waitFor(`server ${pid} computing a chunk`, () => (cpuTicks(pid) ?? 0) >= ready + 5);
  }
}

/** SIGKILL is asynchronous: processes are gone within moments, not at once. */
async function expectNoProcessLeft(): Promise<void> {
  await waitFor('all whisper-server processes ending', () => serverProcesses().length === 0).catch(() => {
    expect(serverProcesses()).toEqual([]);
  });
}

/** A whisper-server that notes each start in a file, then runs the real one (same arguments). */
function countingServer(name: string): { binaryPath: string; starts: () => number } {
  const log = path.join(workDir, `${name}.starts`);
  const binaryPath = path.join(workDir, `${name}-server.sh`);
  writeFileSync(log, '');
  writeFileSync(binaryPath, `#!/bin/sh\necho start >> '${log}'\nexec '${whisperServerPath(binDir)}' "$@"\n`);
  chmodSync(binaryPath, 0o755);
  return { binaryPath, starts: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length };
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
  model = path.join(workDir, 'whisper-det-micro.bin');
  symlinkSync(SHARED_MODEL, model);
  jfk = await decodeClip(JFK);
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
  await expectNoProcessLeft();
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('WhisperCppRecognizer with a real whisper-server and the synthetic model', () => {
  it("reads the synthetic model's auto-detected language (de, though the JFK clip is English) and its words with token timings", async () => {
    const out = await recognizer().recognize({ samples: jfk, offset: 0 }, options());
    // The synthetic model always detects German: this proves the detected language is read, not that it is right.
    expect(out.detectedLanguage).toBe('de');
    expectWords(out.words, [
      ['w100', 0.34, 0.83],
      ['w200', 0.83, 1.66],
      ['w300', 1.66, 2.1],
    ]);
  });

  it("gives each word the mean of its tokens' probabilities as confidence, in 0..1", async () => {
    const out = await recognizer().recognize({ samples: jfk, offset: 0 }, options());
    expect(out.words.length).toBeGreaterThan(0);
    for (const word of out.words) {
      expect(typeof word.confidence).toBe('number');
      expect(word.confidence).toBeGreaterThanOrEqual(0);
      expect(word.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('returns words in file time (chunk offset added)', async () => {
    const out = await recognizer().recognize({ samples: jfk, offset: 12.5 }, options());
    expectWords(out.words, [
      ['w100', 12.84, 13.33],
      ['w200', 13.33, 14.16],
      ['w300', 14.16, 14.6],
    ]);
  });

  it('gives the untrimmed even split on audio without low-energy edges', async () => {
    const out = await recognizer().recognize({ samples: whiteNoise(5), offset: 0 }, options());
    expectWords(out.words, [
      ['w100', 0, 0.83],
      ['w200', 0.83, 1.66],
      ['w300', 1.66, 2.5],
    ]);
  });

  it('loads the model once for all chunks of a job: one server start, not one per chunk', async () => {
    const counting = countingServer('once');
    const r = recognizer({ binaryPath: counting.binaryPath });
    for (let i = 0; i < 3; i++) {
      const out = await r.recognize({ samples: jfk, offset: i * 11 }, options());
      expect(out.words.map((w) => w.word)).toEqual(['w100', 'w200', 'w300']);
    }
    expect(counting.starts()).toBe(1);
    // The server stays up between chunks and is the same process throughout.
    const [server] = servers();
    await r.recognize({ samples: jfk, offset: 40 }, options());
    expect(servers().map((s) => s.pid)).toEqual([server.pid]);
    expect(counting.starts()).toBe(1);
  });

  it('starts nothing for an empty chunk and keeps words inside a short one', async () => {
    const r = recognizer();
    const empty = await r.recognize({ samples: new Float32Array(0), offset: 4 }, options('en'));
    expect(empty).toEqual({ words: [], detectedLanguage: 'en' });
    expect(servers()).toEqual([]);
    // Whisper pads to 30 s and the synthetic decoder still emits words up to 2.5 s.
    const short = await r.recognize({ samples: jfk.subarray(0, 8000), offset: 4 }, options());
    expect(short.words.map((w) => w.word)).toEqual(['w100', 'w200', 'w300']);
    for (const w of short.words) {
      expect(w.start).toBeGreaterThanOrEqual(4);
      expect(w.end).toBeLessThanOrEqual(4.5);
      expect(w.end).toBeGreaterThanOrEqual(w.start);
    }
  });

  it('answers concurrent calls with each chunk’s own words in file time, through one queued server', async () => {
    const counting = countingServer('queued');
    const r = recognizer({ binaryPath: counting.binaryPath }, { parallelism: 3, servers: 1 });
    const offsets = [0, 30, 60, 90, 120, 150];
    const outs = await Promise.all(
      offsets.map((offset, i) =>
        // Odd chunks are noise (untrimmed words), even ones jfk (trimmed): answers must not be swapped.
        r.recognize({ samples: i % 2 === 0 ? jfk : whiteNoise(5), offset }, options()),
      ),
    );
    outs.forEach((out, i) => {
      const at = offsets[i];
      expectWords(
        out.words,
        i % 2 === 0
          ? [
              ['w100', at + 0.34, at + 0.83],
              ['w200', at + 0.83, at + 1.66],
              ['w300', at + 1.66, at + 2.1],
            ]
          : [
              ['w100', at, at + 0.83],
              ['w200', at + 0.83, at + 1.66],
              ['w300', at + 1.66, at + 2.5],
            ],
      );
    });
    expect(counting.starts()).toBe(1);
  });

  it('runs one server per concurrent chunk by default, each with its share of the threads', async () => {
    const counting = countingServer('pool');
    const r = recognizer({ binaryPath: counting.binaryPath, threads: 2 }, { parallelism: 2 });
    const first = r.recognize({ samples: whiteNoise(120), offset: 0 }, options());
    const second = r.recognize({ samples: whiteNoise(120, 0.3, 2), offset: 120 }, options());
    await waitFor('two servers', () => servers().length === 2);
    for (const server of servers()) expect(server.argv[server.argv.indexOf('-t') + 1]).toBe('1');
    const [a, b] = await Promise.all([first, second]);
    expect(a.words[0].start).toBeCloseTo(0, 2);
    expect(b.words[0].start).toBeCloseTo(120, 2);
    // A third and fourth chunk reuse the two loaded models.
    await Promise.all([
      r.recognize({ samples: jfk, offset: 0 }, options()),
      r.recognize({ samples: jfk, offset: 11 }, options()),
    ]);
    expect(counting.starts()).toBe(2);
  });

  it('never runs more servers than threads', async () => {
    const counting = countingServer('budget');
    const r = recognizer({ binaryPath: counting.binaryPath, threads: 1 }, { parallelism: 4 });
    const outs = await Promise.all(
      [0, 11, 22].map((offset) => r.recognize({ samples: jfk, offset }, options())),
    );
    expect(outs.map((o) => o.words[0].start)).toEqual([0.34, 11.34, 22.34].map((t) => expect.closeTo(t, 2)));
    expect(counting.starts()).toBe(1);
  });

  it('passes an explicit language through to whisper.cpp', async () => {
    const r = recognizer();
    const fr = await r.recognize({ samples: jfk, offset: 0 }, options('fr'));
    expect(fr.detectedLanguage).toBe('fr');
    expect(fr.words.map((w) => w.word)).toEqual(['w100', 'w200', 'w300']);
    // The service says jv for Javanese, whisper.cpp says jw: mapped both ways.
    const jv = await r.recognize({ samples: jfk, offset: 0 }, options('jv'));
    expect(jv.detectedLanguage).toBe('jv');
  });

  it('rejects a language Whisper does not know before starting a server', async () => {
    await expectEngineError(
      recognizer().recognize({ samples: jfk, offset: 0 }, options('xx')),
      'UNSUPPORTED_LANGUAGE',
      /xx/,
    );
    expect(servers()).toEqual([]);
  });

  it('passes the vocabulary as the prompt, which reaches the decoder without breaking it', async () => {
    const r = recognizer();
    const plain = await r.recognize({ samples: jfk, offset: 0 }, options());
    const prompted = await r.recognize(
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
    // The prompt is per request: the next chunk without vocabulary is back to the plain result.
    const after = await r.recognize({ samples: jfk, offset: 0 }, options());
    expect(after.words).toEqual(plain.words);

    // A 500-word vocabulary (the API's maximum) is cut to the prompt budget rather than failing.
    const many = Array.from({ length: 500 }, (_, i) => `term${i}`);
    const big = await r.recognize({ samples: jfk, offset: 0 }, options('auto', many));
    expect(big.detectedLanguage).toBe('de');
  });

  it('kills the server mid-chunk on abort and rejects with the abort reason', async () => {
    const r = recognizer();
    const controller = new AbortController();
    // 120 s of audio = four 30 s windows: several seconds of work, so the abort lands mid-request.
    const running = r.recognize(
      { samples: whiteNoise(120), offset: 0 },
      options('auto', [], controller.signal),
    );
    await waitUntilServing(1);
    // The server really got the model and threads.
    const [{ argv }] = servers();
    expect(argv).toEqual(expect.arrayContaining(['-m', model, '-t', '2', '--host', '127.0.0.1']));
    expect(argv[argv.indexOf('-t') + 1]).toBe('2');
    const reason = new Error('job cancelled');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    // Killed, not left to finish the chunk: the server, its guard and the guard's watcher all end.
    await expectNoProcessLeft();
  });

  it('rejects a queued call on abort without touching the running one', async () => {
    const r = recognizer({}, { parallelism: 2, servers: 1 });
    const running = r.recognize({ samples: jfk, offset: 0 }, options());
    const controller = new AbortController();
    const queued = r.recognize({ samples: jfk, offset: 11 }, options('auto', [], controller.signal));
    const reason = new Error('job cancelled');
    controller.abort(reason);
    await expect(queued).rejects.toBe(reason);
    expect((await running).words.map((w) => w.word)).toEqual(['w100', 'w200', 'w300']);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      recognizer().recognize({ samples: jfk, offset: 0 }, options('auto', [], controller.signal)),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(servers()).toEqual([]);
  });

  it('times out a chunk that runs too long and kills its server', async () => {
    // The limit covers the request, not the server start (model loading): the start is not cut short.
    const r = recognizer({ timeoutMs: 300 });
    await expectEngineError(
      r.recognize({ samples: whiteNoise(120), offset: 0 }, options()),
      'ENGINE_TIMEOUT',
      /300 ms/,
    );
    await expectNoProcessLeft();
  });

  it('reports a server that dies mid-chunk, and recovers with a new one', async () => {
    const r = recognizer();
    const running = r.recognize({ samples: whiteNoise(120), offset: 0 }, options());
    await waitUntilServing(1);
    process.kill(servers()[0].pid, 'SIGKILL');
    await expectEngineError(running, 'ENGINE_FAILED', /whisper-server was killed by SIGKILL/);
    const next = await r.recognize({ samples: jfk, offset: 0 }, options());
    expect(next.words.map((w) => w.word)).toEqual(['w100', 'w200', 'w300']);
  });

  it('fails cleanly on a missing model file', async () => {
    await expectEngineError(
      recognizer({ modelPath: '/nonexistent/ggml-base.bin' }).recognize(
        { samples: jfk, offset: 0 },
        options(),
      ),
      'ENGINE_FAILED',
      /model file not found: \/nonexistent\/ggml-base\.bin/,
    );
  });

  it('fails cleanly on a corrupt or truncated model, naming the file, once per job', async () => {
    const corrupt = path.join(workDir, 'corrupt.bin');
    const truncated = path.join(workDir, 'truncated.bin');
    await writeFile(corrupt, Buffer.alloc(4096, 7));
    await writeFile(truncated, readFileSync(SHARED_MODEL).subarray(0, 3_000_000));
    const counting = countingServer('corrupt');
    const bad = recognizer({ modelPath: corrupt, binaryPath: counting.binaryPath });
    await expectEngineError(
      bad.recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      new RegExp(`could not load model ${corrupt}.*bad magic`),
    );
    // The next chunk of the job fails the same way without loading the file again.
    await expectEngineError(
      bad.recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      /corrupt/,
    );
    expect(counting.starts()).toBe(1);
    await expectEngineError(
      recognizer({ modelPath: truncated }).recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      new RegExp(`could not load model ${truncated}.*not all tensors loaded`),
    );
  });

  it('reports a failed request with whisper.cpp’s reason', async () => {
    // An operator's bad extra argument: whisper.cpp refuses the audio context and the request fails.
    await expectEngineError(
      recognizer({ extraArgs: ['-ac', '99999'] }).recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      /whisper-server answered HTTP 500: failed to process audio: .*audio_ctx is larger than the maximum/,
    );
  });

  it('reports a server that exits during start-up, without its usage text', async () => {
    const err = await expectEngineError(
      recognizer({ extraArgs: ['-l', 'xx'] }).recognize({ samples: jfk, offset: 0 }, options()),
      'ENGINE_FAILED',
      /whisper-server exited with code 0: .*unknown language 'xx'/,
    );
    expect(err.message).not.toMatch(/usage:/);
  });

  it('names the build script when whisper-server is missing', async () => {
    await expectEngineError(
      recognizer({ binaryPath: '/nonexistent/whisper-server' }).recognize(
        { samples: jfk, offset: 0 },
        options(),
      ),
      'ENGINE_FAILED',
      /whisper-server not found .*scripts\/build-whisper-cpp\.sh/,
    );
  });

  it('close() kills the running chunk’s server and an idle one, and refuses new chunks', async () => {
    const r = recognizer({}, { parallelism: 2, servers: 2 });
    // One server finishes its chunk and idles; the other is busy with a long one.
    await r.recognize({ samples: jfk, offset: 0 }, options());
    const running: Promise<RecognitionOutput> = r.recognize(
      { samples: whiteNoise(120), offset: 0 },
      options(),
    );
    const busy = r.recognize({ samples: whiteNoise(120, 0.3, 3), offset: 0 }, options());
    await waitUntilServing(2);
    // Their outcomes are awaited from before close(), so neither rejection is ever left unhandled meanwhile.
    const ended = Promise.all([
      expectEngineError(running, 'ENGINE_FAILED', /closed/),
      expectEngineError(busy, 'ENGINE_FAILED', /closed/),
    ]);
    await r.close();
    await ended;
    await expectEngineError(r.recognize({ samples: jfk, offset: 0 }, options()), 'ENGINE_FAILED', /closed/);
    await expectNoProcessLeft();
  });

  it('takes the server down when the process that started it dies without cleaning up', async () => {
    // A stand-in for the engine child, which the runner kills with SIGKILL on abort and timeout.
    const [command, args] = guardedServerCommand(whisperServerPath(binDir), [
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '-m',
      model,
    ]);
    const owner = spawn(
      process.execPath,
      [
        '-e',
        `require('node:child_process').spawn(${JSON.stringify(command)}, ${JSON.stringify(args)}, ` +
          `{ stdio: ['pipe', 'ignore', 'ignore'] }); setInterval(() => {}, 1000);`,
      ],
      { stdio: 'ignore' },
    );
    await waitFor('the server', () => servers().length === 1);
    owner.kill('SIGKILL');
    await expectNoProcessLeft();
  });
});
