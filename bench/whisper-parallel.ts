/**
 * whisper.cpp: threads per chunk vs chunks in parallel. A job recognises its speech chunks with up to
 * `parallelism` calls in flight (ENGINE_PARALLELISM); whisper-server serves one request at a time, so those
 * calls can go to
 *   (a) one server with all threads (2), chunks queued one after another, or
 *   (b) one single-threaded server per concurrent chunk (2 servers × 1 thread), 2 chunks at once.
 * Both run through the service's own WhisperCppRecognizer (src/, compiled with the bench) with 2 calls in
 * flight, as the pipeline makes them, on a ~60 s clip of real English speech (the shared English clips
 * concatenated) cut into chunks.
 *
 *   npm run bench:whisper-parallel
 *   node dist-bench/bench/whisper-parallel.js [--models micro,tiny,base] [--seconds 60] [--chunk-seconds 15] [--runs 3]
 *
 * Models: the synthetic `micro det` model of ../shared/models (8 MB; its decoder always emits three words)
 * and random-weight models of the real `tiny` and `base` sizes written by
 * ../shared/models/make_synthetic_ggml_whisper.py into the temp folder (needs python3 with NumPy:
 * `apt-get install -y python3-numpy`). Random weights make the encoder cost real; their decoder emits
 * gibberish of arbitrary length, so the words column shows whether both layouts did the same work.
 *
 * Reported per model and layout: the median over the runs of a cold job (servers started, model loaded, all
 * chunks recognised, servers killed: what one job costs) and of a warm pass (the same chunks again on the
 * running servers), and the ratio (b)/(a) of each: below 1 means two chunks in parallel is faster. The
 * layouts alternate within each run so load changes hit both alike; load average before and after.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SHARED_DIR } from '../test/support/shared-paths';
import { decodeClip } from '../test/support/whisper-cpp/whisper-cpp.testing';
import { WhisperCppRecognizer } from '../src/engine/whisper-cpp/whisper-cpp.recognizer';
import { defaultWhisperCppBinDir, whisperServerPath } from '../src/engine/whisper-cpp/whisper-cpp.settings';
import { benchTempDir, longSpeechFile } from './lib/bench-audio';
import {
  argument,
  fixed,
  loadAverage,
  machineInfo,
  markdownTable,
  median,
  numberArgument,
  publish,
  quietWaitMs,
  runMain,
  seconds,
  waitForQuietMachine,
} from './lib/measure';
import { ROOT } from './lib/sandbox';

const THREADS = 2;
const PARALLELISM = 2;

interface Layout {
  label: string;
  servers: number;
}

const LAYOUTS: readonly Layout[] = [
  { label: '(a) 1 server × 2 threads, chunks queued', servers: 1 },
  { label: '(b) 2 servers × 1 thread, 2 chunks at once', servers: 2 },
];

interface Chunk {
  samples: Float32Array;
  offset: number;
}

interface Timing {
  coldSeconds: number;
  warmSeconds: number;
  words: number;
}

/** The model file for a size: the shared synthetic micro model, or a random-weight one written here. */
function modelFile(size: string, directory: string): string {
  if (size === 'micro') return path.join(SHARED_DIR, 'models', 'whisper-det-micro.bin');
  const file = path.join(directory, `random-${size}.bin`);
  const script = path.join(SHARED_DIR, 'models', 'make_synthetic_ggml_whisper.py');
  console.error(`[bench] writing a random-weight ${size} model`);
  execFileSync('python3', [script, size, file], { stdio: 'inherit' });
  return file;
}

/** Recognises all chunks with `PARALLELISM` calls in flight (as the pipeline does); words in total. */
async function recogniseAll(recognizer: WhisperCppRecognizer, chunks: readonly Chunk[]): Promise<number> {
  const signal = new AbortController().signal;
  let next = 0;
  let words = 0;
  const lane = async (): Promise<void> => {
    while (next < chunks.length) {
      const chunk = chunks[next++];
      const out = await recognizer.recognize(chunk, { language: 'en', vocabulary: [], signal });
      words += out.words.length;
    }
  };
  await Promise.all(Array.from({ length: PARALLELISM }, lane));
  return words;
}

async function timeLayout(
  binaryPath: string,
  modelPath: string,
  layout: Layout,
  chunks: readonly Chunk[],
): Promise<Timing> {
  const recognizer = new WhisperCppRecognizer(
    { binaryPath, modelPath, threads: THREADS },
    { parallelism: PARALLELISM, servers: layout.servers },
  );
  try {
    const cold = process.hrtime.bigint();
    const words = await recogniseAll(recognizer, chunks);
    const coldSeconds = seconds(cold);
    const warm = process.hrtime.bigint();
    await recogniseAll(recognizer, chunks);
    return { coldSeconds, warmSeconds: seconds(warm), words };
  } finally {
    await recognizer.close();
  }
}

async function main(): Promise<void> {
  const sizes = (argument('--models') ?? 'micro,tiny,base').split(',').filter(Boolean);
  const clipSeconds = numberArgument('--seconds', 60);
  const chunkSeconds = numberArgument('--chunk-seconds', 15);
  const runs = numberArgument('--runs', 3);
  const binDir = process.env.WHISPER_CPP_BIN_DIR ?? defaultWhisperCppBinDir(ROOT);
  const binaryPath = whisperServerPath(binDir);
  if (!fs.existsSync(binaryPath)) throw new Error(`${binaryPath} missing: run scripts/build-whisper-cpp.sh`);
  const machine = machineInfo();
  const directory = benchTempDir('whisper-parallel');
  try {
    const clip = await decodeClip(longSpeechFile(directory, clipSeconds / 60, 'wav'));
    const perChunk = Math.round(chunkSeconds * 16000);
    const chunks: Chunk[] = [];
    for (let at = 0; at < clip.length; at += perChunk) {
      chunks.push({ samples: clip.subarray(at, at + perChunk), offset: at / 16000 });
    }
    const models = sizes.map((size) => ({ size, file: modelFile(size, directory) }));
    const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
    const rows: string[][] = [];
    const figures: Record<string, Record<string, Timing[]>> = {};
    for (const { size, file } of models) {
      const timings: Timing[][] = LAYOUTS.map(() => []);
      for (let run = 0; run < runs; run++) {
        // Alternate which layout goes first, so a load change does not always favour the same one.
        const order = run % 2 === 0 ? [0, 1] : [1, 0];
        for (const index of order) {
          const timing = await timeLayout(binaryPath, file, LAYOUTS[index], chunks);
          console.error(
            `[bench] ${size} ${LAYOUTS[index].label}: cold ${fixed(timing.coldSeconds)} s, warm ${fixed(timing.warmSeconds)} s, ${timing.words} words (load ${loadAverage()})`,
          );
          timings[index].push(timing);
        }
      }
      figures[size] = Object.fromEntries(LAYOUTS.map((layout, i) => [layout.label, timings[i]]));
      const cold = timings.map((t) => median(t.map((x) => x.coldSeconds)));
      const warm = timings.map((t) => median(t.map((x) => x.warmSeconds)));
      LAYOUTS.forEach((layout, i) =>
        rows.push([
          size,
          layout.label,
          fixed(cold[i]),
          fixed(warm[i]),
          timings[i].map((t) => t.words).join(' / '),
          i === 0 ? '1.00' : fixed(cold[i] / cold[0]),
          i === 0 ? '1.00' : fixed(warm[i] / warm[0]),
        ]),
      );
    }
    const table = markdownTable(
      [
        'model',
        'layout',
        'cold job, median (s)',
        'warm pass, median (s)',
        'words per run',
        'cold ÷ (a)',
        'warm ÷ (a)',
      ],
      rows,
    );
    publish(
      'whisper-parallel',
      `${table}\n\n${chunks.length} chunks of ≤ ${chunkSeconds} s from ${fixed(clip.length / 16000, 1)} s of real English ` +
        `speech, language en, ${PARALLELISM} calls in flight, ${THREADS} threads in all; ${runs} runs per layout. ` +
        `Load average before ${loadAtStart}, after ${loadAverage()}. Machine: ${machine.cpus} × ${machine.cpuModel}.`,
      { figures, chunks: chunks.length, chunkSeconds, clipSeconds: clip.length / 16000, loadAtStart },
    );
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
