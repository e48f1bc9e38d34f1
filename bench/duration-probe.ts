/**
 * Files that state no duration: what measuring the duration of an upload whose container states
 * none costs. The input is a WebM written through a pipe (`-live 1`, so no Duration element, like a browser's
 * MediaRecorder): the JFK fixture as Opus 128 kb/s, stream-copied in a loop to about `--mb` MB, made in the
 * temp folder and deleted afterwards.
 *
 *   npm run bench:duration-probe
 *   node dist-bench/bench/duration-probe.js [--mb 500] [--runs 3]
 *
 * Compared, each as median / min / max wall time over the runs and the duration found:
 * - the service's measureMediaDuration (dist/): ffmpeg copies the audio packets to the null muxer, no decoding;
 * - ffprobe listing every packet's timestamp (`-show_entries packet=pts_time,duration_time`), last one;
 * - a full decode (`ffmpeg -f null`) of the first `--decode-minutes` minutes, scaled up, for reference.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchTempDir } from './lib/bench-audio';
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

type ProbeModule = typeof import('../src/engine/audio/media-probe');

function loadBuiltProbe(): ProbeModule {
  const built = path.join(ROOT, 'dist', 'engine', 'audio', 'media-probe.js');
  if (!fs.existsSync(built)) throw new Error(`${built} missing: npm run build first`);
  // The built service code on purpose (not a second compile of src/); the path is fixed, not input.
  // eslint-disable-next-line @typescript-eslint/no-require-imports, security/detect-non-literal-require
  return require(built) as ProbeModule;
}

function ffmpeg(args: string[]): Buffer {
  return execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', ...args], {
    maxBuffer: 1024 * 1024 * 1024,
  });
}

/** ffprobe's packet list, last packet's end. */
function lastPacketEnd(file: string): number {
  const output = execFileSync(
    'ffprobe',
    [
      ...['-v', 'error', '-select_streams', 'a:0'],
      ...['-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0', file],
    ],
    { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 },
  );
  const last = output.trim().split('\n').at(-1) ?? '';
  const [pts, duration] = last.split(',').map(Number);
  return pts + (Number.isFinite(duration) ? duration : 0);
}

async function time(runs: number, measure: () => Promise<number | null> | number | null) {
  const times: number[] = [];
  let found: number | null = null;
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    found = await measure();
    times.push(seconds(started));
  }
  return { times, found };
}

async function main(): Promise<void> {
  const targetBytes = numberArgument('--mb', 500) * 1_000_000;
  const runs = numberArgument('--runs', 3);
  const decodeMinutes = numberArgument('--decode-minutes', 10);
  const { measureMediaDuration, probeMedia } = loadBuiltProbe();
  const machine = machineInfo();
  const directory = benchTempDir('duration-probe');
  try {
    const clip = path.join(directory, 'clip.webm');
    ffmpeg([
      '-i',
      path.join(ROOT, 'test/fixtures/audio/whisper.cpp/jfk.wav'),
      '-c:a',
      'libopus',
      '-b:a',
      '128k',
      clip,
    ]);
    const loops = Math.max(0, Math.ceil(targetBytes / fs.statSync(clip).size) - 1);
    const file = path.join(directory, 'piped.webm');
    fs.writeFileSync(
      file,
      ffmpeg(['-stream_loop', String(loops), '-i', clip, '-c', 'copy', '-live', '1', '-f', 'webm', 'pipe:1']),
    );
    const stated = (await probeMedia(file)).durationSeconds;
    const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
    await measureMediaDuration(file);
    const service = await time(runs, () => measureMediaDuration(file));
    const packets = await time(runs, () => lastPacketEnd(file));
    const decode = await time(runs, () => {
      ffmpeg(['-t', String(decodeMinutes * 60), '-i', file, '-map', '0:a:0', '-f', 'null', '-']);
      return null;
    });
    const audioSeconds = service.found ?? NaN;
    const decodeScaled = decode.times.map((t) => (t * audioSeconds) / (decodeMinutes * 60));
    const row = (label: string, times: number[], found: number | null): string[] => [
      label,
      fixed(median(times), 2),
      fixed(Math.min(...times), 2),
      fixed(Math.max(...times), 2),
      found === null ? '–' : fixed(found, 3),
    ];
    const table = markdownTable(
      ['method', 'median (s)', 'min (s)', 'max (s)', 'duration found (s)'],
      [
        row('measureMediaDuration (dist/): packets copied to the null muxer', service.times, service.found),
        row('ffprobe packet list, last pts + duration', packets.times, packets.found),
        row(`full decode, ${decodeMinutes} min timed, scaled to the file`, decodeScaled, null),
      ],
    );
    publish(
      'duration-probe',
      `${table}\n\nInput: WebM/Opus 128 kb/s written through a pipe, ${fixed(fs.statSync(file).size / 1e6, 1)} MB, ` +
        `${fixed(audioSeconds / 3600, 2)} h; duration the container states: ${stated === null ? 'none' : fixed(stated, 3)}. ` +
        `${runs} runs after a warm-up. Load average before ${loadAtStart}, after ${loadAverage()}. ` +
        `Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.ffmpeg}.`,
      {
        service,
        packets,
        decode,
        decodeScaled,
        audioSeconds,
        stated,
        bytes: fs.statSync(file).size,
        loadAtStart,
      },
    );
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
