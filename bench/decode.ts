/**
 * Decode: a 10-minute MP3 of real English speech (the shared English clips concatenated and looped, 64 kb/s mono,
 * made in the temp folder and deleted afterwards) decoded to 16 kHz mono PCM by the service's own decoder
 * (decodeToPcm of dist/engine/audio/ffmpeg-decoder.js, i.e. the built service code: ffmpeg child process,
 * s16le over a pipe, converted to Float32 as it streams). No service needed.
 *
 *   npm run bench:decode
 *   node dist-bench/bench/decode.js [--minutes 10] [--runs 7]
 *
 * Reported: median / min / max wall time over the runs (after one warm-up), the samples produced, and for
 * reference the bare ffmpeg CLI writing the same PCM to /dev/null. Target: < 1 s for 10 minutes.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchTempDir, longSpeechFile, probeSeconds } from './lib/bench-audio';
import {
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

type DecoderModule = typeof import('../src/engine/audio/ffmpeg-decoder');

function loadBuiltDecoder(): DecoderModule {
  const built = path.join(ROOT, 'dist', 'engine', 'audio', 'ffmpeg-decoder.js');
  if (!fs.existsSync(built)) throw new Error(`${built} missing: npm run build first`);
  // The built service code on purpose (not a second compile of src/); the path is fixed, not input.
  // eslint-disable-next-line @typescript-eslint/no-require-imports, security/detect-non-literal-require
  return require(built) as DecoderModule;
}

async function main(): Promise<void> {
  const minutes = numberArgument('--minutes', 10);
  const runs = numberArgument('--runs', 7);
  const { decodeToPcm } = loadBuiltDecoder();
  const machine = machineInfo();
  const directory = benchTempDir('decode');
  try {
    const file = longSpeechFile(directory, minutes);
    const audioSeconds = probeSeconds(file);
    const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
    await decodeToPcm(file);
    const service: number[] = [];
    let samples = 0;
    for (let run = 0; run < runs; run++) {
      const started = process.hrtime.bigint();
      const pcm = await decodeToPcm(file);
      service.push(seconds(started));
      samples = pcm.samples.length;
    }
    const cli: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = process.hrtime.bigint();
      execFileSync('ffmpeg', [
        '-nostdin',
        '-v',
        'error',
        '-i',
        file,
        '-ac',
        '1',
        '-ar',
        '16000',
        '-f',
        's16le',
        '-acodec',
        'pcm_s16le',
        '-y',
        '/dev/null',
      ]);
      cli.push(seconds(started));
    }
    const row = (label: string, times: number[]): string[] => [
      label,
      fixed(median(times), 3),
      fixed(Math.min(...times), 3),
      fixed(Math.max(...times), 3),
      fixed(audioSeconds / median(times), 0),
    ];
    const table = markdownTable(
      ['decoder', 'median (s)', 'min (s)', 'max (s)', '× real time'],
      [
        row('service decodeToPcm (dist/), to Float32 in memory', service),
        row('bare ffmpeg CLI to /dev/null', cli),
      ],
    );
    publish(
      'decode',
      `${table}\n\nInput: ${fixed(audioSeconds / 60, 2)} min MP3 64 kb/s mono (${fixed(fs.statSync(file).size / 1e6, 1)} MB), ` +
        `${samples.toLocaleString('en')} samples out; ${runs} runs after a warm-up. ` +
        `Load average before ${loadAtStart}, after ${loadAverage()}. Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.ffmpeg}.`,
      { service, cli, audioSeconds, samples, loadAtStart },
    );
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
