/**
 * Per-job overhead on short clips (issue 36, item 1): the service end to end against the bare PocketSphinx CLI on
 * the same clips, in one alternating run, plus the first job after an idle period.
 *
 *   npm run build && npx tsc -p tsconfig.bench.json
 *   node dist-bench/bench/run-service.js job-overhead [--rounds 3] [--idle-seconds 60] [--max-clips 15]
 *
 * Clips: the English clips of ../shared/audio (MANIFEST.tsv) lasting 3–11 s. Per round and clip, alternating
 * (service, then CLI, then the next clip; every other round the CLI first): (a) the bare CLI as a user would run
 * it, `ffmpeg` to a 16 kHz mono WAV then `pocketsphinx_continuous` on it, both timed; (b) the service: upload →
 * 202 → terminal status seen on the SSE stream. The ratio is Σ(b) / Σ(a) over every run; target ≤ 1.05.
 * First-job latency: after the rounds the service is left without jobs for --idle-seconds, then one clip is sent;
 * its end-to-end time is reported beside the median of the same clip in the rounds.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchTempDir, sharedAudio, sharedManifest } from './lib/bench-audio';
import {
  fixed,
  loadAverage,
  machineInfo,
  markdownTable,
  median,
  numberArgument,
  publish,
  runMain,
  seconds,
} from './lib/measure';
import { serviceTargetFromArguments, transcribeThroughService } from './lib/service-client';

const MODEL = '/usr/share/pocketsphinx/model/en-us';

interface Clip {
  name: string;
  file: string;
  durationSeconds: number;
}

function shortEnglishClips(maxClips: number): Clip[] {
  return sharedManifest()
    .filter((row) => row.language === 'en' && Number(row.speakers) === 1)
    .filter((row) => Number(row.duration_s) >= 3 && Number(row.duration_s) <= 11)
    .filter((row) => !/MODEL OUTPUT/i.test(row.ref_kind ?? ''))
    .slice(0, maxClips)
    .map((row) => ({ name: row.path, file: sharedAudio(row.path), durationSeconds: Number(row.duration_s) }));
}

/** ffmpeg + pocketsphinx_continuous, both timed (what a user of the bare CLI runs). */
function bareCli(clip: Clip, directory: string): number {
  const started = process.hrtime.bigint();
  const wav = path.join(directory, 'cli.wav');
  execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', clip.file, '-ac', '1', '-ar', '16000', wav]);
  execFileSync(
    'pocketsphinx_continuous',
    [
      '-infile',
      wav,
      '-hmm',
      `${MODEL}/en-us`,
      '-lm',
      `${MODEL}/en-us.lm.bin`,
      '-dict',
      `${MODEL}/cmudict-en-us.dict`,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 },
  );
  return seconds(started);
}

async function main(): Promise<number> {
  const target = serviceTargetFromArguments(process.argv);
  if (!target) {
    console.error('usage: node dist-bench/bench/run-service.js job-overhead [--rounds N] [--idle-seconds S]');
    return 2;
  }
  const rounds = numberArgument('--rounds', 3);
  const idleSeconds = numberArgument('--idle-seconds', 60);
  const clips = shortEnglishClips(numberArgument('--max-clips', 15));
  if (clips.length === 0) throw new Error('no English clips of 3–11 s in the shared audio set');
  const directory = benchTempDir('job-overhead');
  const loadBefore = loadAverage();
  const times = new Map<string, { service: number[]; cli: number[] }>(
    clips.map((clip) => [clip.name, { service: [], cli: [] }]),
  );
  try {
    // One job first, outside the figures: the service's own first start (models, caches) is not per-job overhead.
    await transcribeThroughService(target, clips[0].file);
    for (let round = 0; round < rounds; round++) {
      for (const clip of clips) {
        const entry = times.get(clip.name) as { service: number[]; cli: number[] };
        const service = async (): Promise<void> => {
          const run = await transcribeThroughService(target, clip.file);
          if (run.transcription.status !== 'completed')
            throw new Error(`${clip.name}: ${run.transcription.status}`);
          entry.service.push(run.endToEndSeconds);
        };
        const cli = async (): Promise<void> => void entry.cli.push(bareCli(clip, directory));
        const order = round % 2 === 0 ? [service, cli] : [cli, service];
        for (const step of order) await step();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const firstAfterIdle = await transcribeThroughService(target, clips[0].file);
    const loadAfter = loadAverage();

    const rows = clips.map((clip) => {
      const entry = times.get(clip.name) as { service: number[]; cli: number[] };
      return [
        clip.name,
        fixed(clip.durationSeconds, 1),
        fixed(median(entry.service)),
        fixed(median(entry.cli)),
        fixed(median(entry.service) / median(entry.cli)),
      ];
    });
    const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
    const serviceTotal = sum([...times.values()].flatMap((entry) => entry.service));
    const cliTotal = sum([...times.values()].flatMap((entry) => entry.cli));
    const ratio = serviceTotal / cliTotal;
    const firstClipMedian = median((times.get(clips[0].name) as { service: number[] }).service);
    const markdown = [
      `Machine: ${JSON.stringify(machineInfo())}; load before ${loadBefore}, after ${loadAfter}; ${rounds} rounds.`,
      '',
      markdownTable(['clip', 'audio s', 'service s (median)', 'ffmpeg + CLI s (median)', 'ratio'], rows),
      '',
      `Service ÷ bare CLI over all runs: **${fixed(ratio, 3)}** (target ≤ 1.05).`,
      `First job after ${idleSeconds} s idle (${clips[0].name}): ${fixed(firstAfterIdle.endToEndSeconds)} s ` +
        `end to end vs ${fixed(firstClipMedian)} s median in the rounds.`,
    ].join('\n');
    publish('job-overhead', markdown, { ratio, firstAfterIdleSeconds: firstAfterIdle.endToEndSeconds });
    return 0;
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
