/**
 * Word error rate and timing on the English single-speaker clips of the shared audio set.
 *
 *   npx tsc -p tsconfig.bench.json && node dist-bench/bench/wer.js [--only SUBSTRING] [--long]
 *   node dist-bench/bench/wer.js --service http://127.0.0.1:3000 --api-key KEY [--long]
 *   npm run bench:wer            # = the second form against a throwaway service (bench/run-service.ts), with --long
 *
 * Per clip: (a) the bare pocketsphinx_continuous CLI on a 16 kHz mono WAV made by ffmpeg beforehand (the timed part
 * is the CLI process alone, model load included); (b) our pipeline in-process, warm (decode, Silero VAD, chunked
 * in-process PocketSphinx, no diarization; model load paid once before the loop). With --service also
 * (c) the engine child process exactly as the worker runs it (fork + model load + decode + VAD + recognition +
 * classical diarization, no HTTP/DB/queue) and (d) the service end to end: upload → 202 → terminal status seen on
 * the SSE stream; the overhead ratio is (d) / (a).
 * --repeat N measures every system N times per clip (interleaved clip by clip) and reports the run with the median time.
 * --long adds a generated 10-minute MP3 (the clips concatenated and looped, written to the temp folder and deleted):
 * its decode time, and with --service the CLI and service times on it.
 *
 * Clips whose reference is a model's output are left out (MANIFEST ref_kind "MODEL OUTPUT") or, when the reference
 * is Whisper output that matches the known speech (JFK, mm1), scored in their own group, outside the overall.
 * It reads the shared clip set (../shared/audio or SHARED_DIR) and stops with a message saying where it looked
 * when the set is missing; clip handling, timing and tables come from bench/lib.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodeToPcm } from '../src/engine/audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../src/engine/engine-settings';
import { SingleSpeakerDiarizer } from '../src/engine/diarization/single-speaker.diarizer';
import type { TranscribeRequest } from '../src/engine/engine.types';
import { TranscriptionPipeline } from '../src/engine/pipeline/transcription-pipeline';
import { PocketSphinxRecognizer } from '../src/engine/pocketsphinx/pocketsphinx-recognizer';
import { EngineRunner } from '../src/engine/runner/engine-runner';
import { SileroSpeechDetector } from '../src/engine/speech/silero-speech-detector';
import { ffmpeg, sharedAudio, sharedManifest, toMonoWav16k } from './lib/bench-audio';
import { argument, fixed, markdownTable as table, median, runMain, seconds } from './lib/measure';
import {
  serviceTargetFromArguments,
  transcribeThroughService,
  type ServiceTarget,
} from './lib/service-client';
import { overallWordErrorRate, wordErrorRate, type WordErrorRate } from './lib/word-error-rate';

type ReferenceGroup = 'human' | 'Whisper-derived';

interface Clip {
  /** As in MANIFEST.tsv (the name in the tables). */
  path: string;
  /** Absolute path of the audio file. */
  file: string;
  reference: string;
  refKind: string;
  group: ReferenceGroup;
}

interface Measurement {
  wer: WordErrorRate;
  seconds: number;
  text: string;
}

interface ServiceMeasurement extends Measurement {
  uploadSeconds: number;
  serverSeconds: number | null;
}

interface Row {
  clip: Clip;
  duration: number;
  cli: Measurement;
  pipeline: Measurement;
  child?: Measurement;
  service?: ServiceMeasurement;
}

const MODEL = '/usr/share/pocketsphinx/model/en-us';

/** English, one speaker, a reference text that is not a model's uncorrected output. */
function selectClips(): Clip[] {
  const only = argument('--only');
  return sharedManifest()
    .filter(
      (row) =>
        row.language === 'en' &&
        row.speakers.startsWith('1') &&
        row.ref_transcript !== '' &&
        !row.ref_kind.includes('MODEL OUTPUT') &&
        (!only || row.path.includes(only)),
    )
    .map((row) => ({
      path: row.path,
      file: sharedAudio(row.path),
      reference: fs.readFileSync(sharedAudio(row.ref_transcript), 'utf8'),
      refKind: row.ref_kind,
      group: /whisper/i.test(row.ref_kind) ? 'Whisper-derived' : 'human',
    }));
}

/** The bare CLI on a ready 16 kHz WAV; the timed part is the pocketsphinx_continuous process alone. */
function runCli(wav: string): { text: string; seconds: number } {
  const started = process.hrtime.bigint();
  const text = execFileSync(
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
  )
    .toString('utf8')
    .replace(/\s+/g, ' ')
    .trim();
  return { text, seconds: seconds(started) };
}

function measureCli(clip: Clip, directory: string): Measurement {
  const { text, seconds: taken } = runCli(toMonoWav16k(clip.file, path.join(directory, 'cli.wav')));
  return { text, seconds: taken, wer: wordErrorRate(clip.reference, text) };
}

const singleSpeaker = new SingleSpeakerDiarizer();

function request(audioPath: string): TranscribeRequest {
  return { audioPath, model: 'standard', language: 'en', vocabulary: [], prompt: null, speakers: {} };
}

/** One run of an in-process engine (the pipeline, or the engine child through its runner) on a clip. */
async function measureEngine(
  label: string,
  engine: { run(request: TranscribeRequest): Promise<{ text: string }> },
  clip: Clip,
): Promise<Measurement> {
  const started = process.hrtime.bigint();
  let text = '';
  try {
    text = (await engine.run(request(clip.file))).text;
  } catch (error) {
    console.error(`  ${label} failed on ${clip.path}: ${(error as Error).message}`);
  }
  return { text, seconds: seconds(started), wer: wordErrorRate(clip.reference, text) };
}

async function measureService(
  target: ServiceTarget,
  file: string,
  reference: string,
): Promise<ServiceMeasurement> {
  // Numbers as the recogniser wrote them, as the other columns see them (format_numbers is on by default).
  const run = await transcribeThroughService(target, file, { language: 'en', format_numbers: 'false' });
  const { transcription } = run;
  if (transcription.status !== 'completed') {
    console.error(
      `  service job ${transcription.id} on ${file}: ${transcription.status} ${transcription.errorMessage ?? ''}`,
    );
  }
  const text = transcription.resultText ?? '';
  return {
    text,
    seconds: run.endToEndSeconds,
    uploadSeconds: run.uploadSeconds,
    serverSeconds: run.serverSeconds,
    wer: wordErrorRate(reference, text),
  };
}

const percent = (value: number): string => `${(value * 100).toFixed(1)} %`;
const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

/** MANIFEST ref_kind, shortened: "human", "test ground truth", "test sentence", or Whisper-derived. */
function referenceLabel(clip: Clip): string {
  if (clip.group === 'Whisper-derived') return 'Whisper-derived (own group)';
  return clip.refKind.replace(/\s*\(.*$/, '');
}

function werTable(rows: Row[], withService: boolean): string {
  const head = ['clip', 'reference', 's', 'words', 'CLI WER', 'pipeline WER'];
  if (withService) head.push('engine child WER', 'service WER');
  const body = rows.map((row) => {
    const cells = [
      row.clip.path,
      referenceLabel(row.clip),
      fixed(row.duration),
      String(row.cli.wer.referenceWords),
      percent(row.cli.wer.rate),
      percent(row.pipeline.wer.rate),
    ];
    if (withService) cells.push(percent(row.child?.wer.rate ?? NaN), percent(row.service?.wer.rate ?? NaN));
    return cells;
  });
  for (const group of ['human', 'Whisper-derived'] as const) {
    const members = rows.filter((row) => row.clip.group === group);
    if (members.length === 0) continue;
    const overall = (pick: (row: Row) => WordErrorRate | undefined): string =>
      percent(
        overallWordErrorRate(members.map((row) => pick(row) ?? { edits: NaN, referenceWords: 0, rate: NaN })),
      );
    const cells = [
      `**overall, ${group} references (${members.length} clips)**`,
      '',
      fixed(sum(members.map((row) => row.duration))),
      String(sum(members.map((row) => row.cli.wer.referenceWords))),
      overall((row) => row.cli.wer),
      overall((row) => row.pipeline.wer),
    ];
    if (withService)
      cells.push(
        overall((row) => row.child?.wer),
        overall((row) => row.service?.wer),
      );
    body.push(cells);
  }
  return table(head, body);
}

function timingTable(rows: Row[], withService: boolean): string {
  const head = ['clip', 'audio s', 'CLI s (RTF)', 'pipeline warm s (RTF)'];
  if (withService)
    head.push(
      'engine child s',
      'service end-to-end s',
      'of which upload s',
      'server s',
      'ratio service / CLI',
    );
  const cell = (value: number, duration: number): string => `${fixed(value)} (${fixed(value / duration, 3)})`;
  const body = rows.map((row) => {
    const cells = [
      row.clip.path,
      fixed(row.duration),
      cell(row.cli.seconds, row.duration),
      cell(row.pipeline.seconds, row.duration),
    ];
    if (withService && row.child && row.service) {
      cells.push(
        fixed(row.child.seconds),
        fixed(row.service.seconds),
        fixed(row.service.uploadSeconds),
        row.service.serverSeconds === null ? '–' : fixed(row.service.serverSeconds),
        fixed(row.service.seconds / row.cli.seconds),
      );
    }
    return cells;
  });
  const audio = sum(rows.map((row) => row.duration));
  const cli = sum(rows.map((row) => row.cli.seconds));
  const pipeline = sum(rows.map((row) => row.pipeline.seconds));
  const total = [`**total (${rows.length} clips)**`, fixed(audio), cell(cli, audio), cell(pipeline, audio)];
  if (withService) {
    const service = sum(rows.map((row) => row.service?.seconds ?? NaN));
    total.push(
      fixed(sum(rows.map((row) => row.child?.seconds ?? NaN))),
      fixed(service),
      fixed(sum(rows.map((row) => row.service?.uploadSeconds ?? NaN))),
      rows.every((row) => typeof row.service?.serverSeconds === 'number')
        ? fixed(sum(rows.map((row) => row.service?.serverSeconds ?? 0)))
        : '– (a job failed)',
      `${fixed(service / cli)} (median per clip ${fixed(median(rows.map((row) => (row.service?.seconds ?? NaN) / row.cli.seconds)))})`,
    );
  }
  body.push(total);
  return table(head, body);
}

/** The selected clips as 16 kHz WAVs, concatenated and looped to 10 minutes, encoded as 128 kb/s stereo MP3. */
function makeLongMp3(clips: Clip[], directory: string): string {
  const list: string[] = [];
  clips.forEach((clip, index) => {
    const wav = path.join(directory, `part-${index}.wav`);
    toMonoWav16k(clip.file, wav);
    list.push(`file '${wav}'`);
  });
  const listFile = path.join(directory, 'parts.txt');
  fs.writeFileSync(listFile, `${list.join('\n')}\n`);
  const mp3 = path.join(directory, 'ten-minutes.mp3');
  ffmpeg([
    ...['-stream_loop', '-1', '-f', 'concat', '-safe', '0', '-i', listFile, '-t', '600'],
    ...['-ac', '2', '-ar', '44100', '-c:a', 'libmp3lame', '-b:a', '128k', mp3],
  ]);
  return mp3;
}

async function longFile(clips: Clip[], directory: string, service: ServiceTarget | undefined): Promise<void> {
  const mp3 = makeLongMp3(clips, directory);
  let started = process.hrtime.bigint();
  const pcm = await decodeToPcm(mp3);
  const decode = seconds(started);
  const duration = pcm.samples.length / pcm.sampleRate;
  console.log(
    `\n## Generated 10-minute MP3 (${clips.length} clips concatenated and looped; 128 kb/s, 44.1 kHz stereo)\n`,
  );
  const rows: string[][] = [
    [
      'decode to 16 kHz mono PCM (decodeToPcm, ffmpeg)',
      fixed(duration),
      fixed(decode),
      fixed(decode / duration, 4),
    ],
  ];
  // One job on every core. The same engine child process with one recogniser vs a pool of two,
  // measured back to back in this run (the machine's load is printed with them).
  const byParallelism = new Map<number, number>();
  for (const parallelism of [1, 2]) {
    const runner = new EngineRunner({ ...defaultEngineSettings(), parallelism });
    const load = os.loadavg()[0];
    started = process.hrtime.bigint();
    const result = await runner.run(request(mp3));
    const took = seconds(started);
    byParallelism.set(parallelism, took);
    rows.push([
      `engine child, ENGINE_PARALLELISM=${parallelism} (${result.words.length} words; load ${fixed(load)} at start)`,
      fixed(duration),
      fixed(took),
      fixed(took / duration, 3),
    ]);
  }
  rows.push([
    'ratio parallelism 2 / 1 (target ≤ 0.6)',
    '',
    fixed((byParallelism.get(2) ?? NaN) / (byParallelism.get(1) ?? NaN)),
    '',
  ]);
  rows.push([
    'seconds per audio minute, parallelism 2 (target ≤ 10 when idle)',
    '',
    fixed(((byParallelism.get(2) ?? NaN) / duration) * 60),
    '',
  ]);
  if (service) {
    const wav = path.join(directory, 'ten-minutes.wav');
    toMonoWav16k(mp3, wav);
    const cli = runCli(wav);
    rows.push([
      'bare CLI on the WAV (conversion not timed)',
      fixed(duration),
      fixed(cli.seconds),
      fixed(cli.seconds / duration, 3),
    ]);
    started = process.hrtime.bigint();
    const run = await transcribeThroughService(service, mp3, { language: 'en', format_numbers: 'false' });
    const took = seconds(started);
    rows.push([
      `service end to end (${run.transcription.status}; upload ${fixed(run.uploadSeconds)} s, server ${run.serverSeconds === null ? '–' : fixed(run.serverSeconds)} s; speakers ${run.transcription.speakerCount ?? '–'})`,
      fixed(duration),
      fixed(took),
      fixed(took / duration, 3),
    ]);
    rows.push(['ratio service / CLI', '', fixed(took / cli.seconds), '']);
  }
  console.log(table(['step', 'audio s', 'wall s', 'RTF'], rows));
}

/**
 * Runs a measurement `times` times and keeps the run with the median time (the upper median for an even count), so
 * that one burst of load from other processes on the machine does not decide a clip's number.
 */
async function medianRun<T extends Measurement>(times: number, measure: () => Promise<T>): Promise<T> {
  const runs: T[] = [];
  for (let i = 0; i < times; i++) runs.push(await measure());
  if (new Set(runs.map((run) => run.text)).size > 1)
    console.error('  note: the text differed between repetitions');
  return [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];
}

async function main(): Promise<void> {
  const repeat = Math.max(1, Number(argument('--repeat') ?? '1'));
  const service = serviceTargetFromArguments(process.argv);
  const clips = selectClips();
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'wer-bench-'));
  const settings = defaultEngineSettings();
  const recognizer = new PocketSphinxRecognizer(settings.pocketsphinx);
  const pipeline = new TranscriptionPipeline({
    recognizer,
    speechDetector: new SileroSpeechDetector(settings.speech),
    diarizer: singleSpeaker,
    settings,
  });
  const runner = new EngineRunner(settings);
  const rows: Row[] = [];
  try {
    // Warm-up: the in-process pipeline pays model loading once, before the loop (the CLI and the child pay it per clip).
    if (clips.length > 0) await measureEngine('pipeline', pipeline, clips[0]);
    for (const clip of clips) {
      const pcm = await decodeToPcm(clip.file);
      const row: Row = {
        clip,
        duration: pcm.samples.length / pcm.sampleRate,
        cli: await medianRun(repeat, async () => measureCli(clip, directory)),
        pipeline: await medianRun(repeat, () => measureEngine('pipeline', pipeline, clip)),
      };
      if (service) {
        row.child = await medianRun(repeat, () => measureEngine('engine child', runner, clip));
        row.service = await medianRun(repeat, () => measureService(service, clip.file, clip.reference));
      }
      rows.push(row);
      console.error(
        `${clip.path}: CLI ${percent(row.cli.wer.rate)} ${fixed(row.cli.seconds)} s | pipeline ${percent(row.pipeline.wer.rate)} ` +
          `${fixed(row.pipeline.seconds)} s` +
          (row.service && row.child
            ? ` | child ${fixed(row.child.seconds)} s | service ${percent(row.service.wer.rate)} ${fixed(row.service.seconds)} s` +
              ` | "${row.service.text}"`
            : ` | "${row.pipeline.text}"`),
      );
    }
    console.log(`## WER (English single-speaker clips; reference kinds from MANIFEST.tsv ref_kind)\n`);
    console.log(werTable(rows, service !== undefined));
    console.log(
      `\n## Time per clip (wall seconds, median of ${repeat} run${repeat > 1 ? 's' : ''}; RTF = seconds / audio seconds)\n`,
    );
    console.log(timingTable(rows, service !== undefined));
    if (process.argv.includes('--long')) await longFile(clips, directory, service);
    console.log(`\npeak RSS of the bench process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  } finally {
    await recognizer.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
