/**
 * What one live session costs: a realtime session's recognition (Silero VAD + incremental PocketSphinx, the
 * realtime/recognition code) run in-process on one thread over real English speech as fast as it goes, once
 * per decoder setting. The per-process session capacity default comes from these figures
 * (docs/benchmarks.md, "Realtime sessions").
 *
 *   npx tsc -p tsconfig.bench.json && node dist-bench/bench/realtime-capacity.js [--minutes 2] [--only live]
 *
 * The 15 clips with human-written references (bench/wer.ts' selection) are streamed too, one session each,
 * and their text scored: the streamed WER of each setting. Per setting: CPU seconds per second of audio (the real-time factor of one session on one core), split into
 * VAD, feeding the decoder, partial hypotheses and ending utterances; and the cost of one utterance end (p50 /
 * p95 / max), which is what a final item waits for on an idle core after the closing silence.
 */
import * as fs from 'node:fs';
import { defaultEngineSettings, type PocketSphinxSettings } from '../src/engine/engine-settings';
import { PocketSphinxRecognizer } from '../src/engine/pocketsphinx/pocketsphinx-recognizer';
import { POCKETSPHINX_SEARCH_PRESETS } from '../src/engine/pocketsphinx/search-presets';
import { createSherpaVad, type SherpaVad } from '../src/engine/speech/sherpa-vad.binding';
import { LIVE_POCKETSPHINX_SEARCH } from '../src/realtime/recognition/live-decoding';
import { createLiveRecognizer } from '../src/realtime/recognition/live-recognizer';
import {
  LIVE_SAMPLE_RATE,
  LiveTranscriber,
  type LiveEvent,
  type LiveRecognizer,
  type TurnDetection,
} from '../src/realtime/recognition/live-transcriber';
import { benchTempDir, humanReferenceClips, longSpeechFile, pcm16k, wavSamples } from './lib/bench-audio';
import {
  argument,
  fixed,
  loadAverage,
  machineInfo,
  markdownTable,
  numberArgument,
  percentile,
  publish,
  runMain,
} from './lib/measure';
import { overallWordErrorRate, wordErrorRate } from './lib/word-error-rate';

const APPEND_MS = 100;
const TURN: TurnDetection = { threshold: 0.5, silenceMs: 500, prefixPaddingMs: 300 };

interface Timings {
  vadMs: number;
  feedMs: number;
  partialMs: number;
  endMs: number[];
  utterances: number;
  partials: number;
}

function timed<T>(add: (ms: number) => void, run: () => T): T {
  const started = performance.now();
  try {
    return run();
  } finally {
    add(performance.now() - started);
  }
}

/** The recogniser with each live call timed. */
function timedRecognizer(recognizer: LiveRecognizer, timings: Timings): LiveRecognizer {
  return {
    startUtterance: (vocabulary) => recognizer.startUtterance(vocabulary),
    abandonUtterance: () => recognizer.abandonUtterance(),
    feed: (samples) =>
      timed(
        (ms) => (timings.feedMs += ms),
        () => recognizer.feed(samples),
      ),
    partialText: () =>
      timed(
        (ms) => (timings.partialMs += ms),
        () => recognizer.partialText(),
      ),
    endUtterance: (offset) =>
      timed(
        (ms) => timings.endMs.push(ms),
        () => recognizer.endUtterance(offset),
      ),
  };
}

function timedVad(vadModelPath: string, timings: Timings): (turn: TurnDetection) => SherpaVad {
  return (turn) => {
    const vad = createSherpaVad(
      {
        sileroVad: {
          model: vadModelPath,
          threshold: turn.threshold,
          minSilenceDuration: turn.silenceMs / 1000,
          minSpeechDuration: 0.25,
          windowSize: 512,
          maxSpeechDuration: 30,
        },
        sampleRate: LIVE_SAMPLE_RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: false,
      },
      60,
    );
    const acceptWaveform = vad.acceptWaveform.bind(vad);
    vad.acceptWaveform = (samples) =>
      timed(
        (ms) => (timings.vadMs += ms),
        () => acceptWaveform(samples),
      );
    return vad;
  };
}

interface SettingRun {
  label: string;
  /** Streamed WER on the human-reference clips. */
  wer: number;
  audioSeconds: number;
  wallSeconds: number;
  cpuSeconds: number;
  timings: Timings;
  utterances: number;
  partials: number;
}

/** Streams `pcm` through a fresh live transcriber as fast as it goes; returns the recognised text. */
function stream(recognizer: LiveRecognizer, pcm: Int16Array, timings: Timings): string[] {
  const transcriber = new LiveTranscriber(
    timedRecognizer(recognizer, timings),
    { turnDetection: TURN, vocabulary: [], partialIntervalMs: 500, maxUtteranceSeconds: 25 },
    timedVad(defaultEngineSettings().speech.vadModelPath, timings),
  );
  const step = (LIVE_SAMPLE_RATE * APPEND_MS) / 1000;
  const words: string[] = [];
  const collect = (events: LiveEvent[]): void => {
    for (const event of events) {
      if (event.kind === 'utterance') {
        timings.utterances++;
        words.push(...event.words.map((word) => word.word));
      }
      if (event.kind === 'partial') timings.partials++;
    }
  };
  for (let offset = 0; offset < pcm.length; offset += step) {
    collect(transcriber.accept(pcm.slice(offset, offset + step)));
  }
  collect(transcriber.commit());
  return words;
}

/**
 * A session's recogniser: `sessions` is what the realtime threads create (createLiveRecognizer: a fresh one per
 * session); the other settings are a plain PocketSphinx recogniser with the model's prior mean, kept across
 * sessions (the comparison the earlier runs made).
 */
type RecognizerSource = { sessions: true } | { pocketsphinx: PocketSphinxSettings };

function runSetting(
  label: string,
  source: RecognizerSource,
  pcm: Int16Array,
  clips: ReadonlyArray<{ reference: string; pcm: Int16Array }>,
): SettingRun {
  const timings: Timings = { vadMs: 0, feedMs: 0, partialMs: 0, endMs: [], utterances: 0, partials: 0 };
  const base = defaultEngineSettings().pocketsphinx;
  // Model loads happen outside the measurement, as a session's thread loads them before it reports ready.
  let shared: PocketSphinxRecognizer | null = null;
  if ('pocketsphinx' in source) {
    shared = new PocketSphinxRecognizer(source.pocketsphinx);
    shared.startUtterance([]);
    shared.abandonUtterance();
  }
  const sessions = [pcm, ...clips.map((clip) => clip.pcm)]
    .filter((audio) => audio.length > 0)
    .map(() => shared ?? createLiveRecognizer(base, []));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  // The timed audio: the long speech, then each clip (whose text is scored) in its own session.
  if (pcm.length > 0) stream(sessions[0], pcm, timings);
  const offset = pcm.length > 0 ? 1 : 0;
  const results = clips.map((clip, index) =>
    wordErrorRate(clip.reference, stream(sessions[index + offset], clip.pcm, timings).join(' ')),
  );
  const wallSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const { utterances, partials } = timings;
  void shared?.close();
  console.error(
    `[bench] ${label}: CPU ${(cpu.user + cpu.system) / 1e6} s, wall ${wallSeconds} s, WER ${overallWordErrorRate(results)}`,
  );
  return {
    wer: overallWordErrorRate(results),
    label,
    audioSeconds: (pcm.length + clips.reduce((sum, clip) => sum + clip.pcm.length, 0)) / LIVE_SAMPLE_RATE,
    wallSeconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    timings,
    utterances,
    partials,
  };
}

async function main(): Promise<void> {
  const minutes = numberArgument('--minutes', 0);
  const only = argument('--only');
  const machine = machineInfo();
  const directory = benchTempDir('realtime-capacity');
  try {
    const pcm =
      minutes > 0
        ? wavSamples(fs.readFileSync(longSpeechFile(directory, minutes, 'wav')))
        : new Int16Array(0);
    const clips = humanReferenceClips().map((clip) => ({
      reference: clip.reference,
      pcm: pcm16k(clip.file, directory),
    }));
    const base = defaultEngineSettings().pocketsphinx;
    const unlimitedExits = { ...LIVE_POCKETSPHINX_SEARCH, maxwpf: -1 };
    const settings: Array<[string, RecognizerSource]> = [
      ['sessions (live search, seeded mean, first speech re-decoded)', { sessions: true }],
      ['file default (fwdflat on), prior mean', { pocketsphinx: base }],
      ['default beams, fwdflat off, prior mean', { pocketsphinx: { ...base, search: unlimitedExits } }],
      [
        'live search (maxwpf 20, fwdflat off), prior mean',
        { pocketsphinx: { ...base, search: LIVE_POCKETSPHINX_SEARCH } },
      ],
      [
        'live search, topn 2, prior mean',
        { pocketsphinx: { ...base, search: { ...LIVE_POCKETSPHINX_SEARCH, topn: 2 } } },
      ],
      [
        'fast (fwdflat off), prior mean',
        { pocketsphinx: { ...base, search: { ...POCKETSPHINX_SEARCH_PRESETS.fast, fwdflat: false } } },
      ],
    ];
    const loadAtStart = loadAverage();
    const runs = settings
      .filter(([label]) => !only || label.includes(only))
      .map(([label, source]) => runSetting(label, source, pcm, clips));
    const rows = runs.map((run) => {
      const perAudio = (ms: number) => fixed(ms / 1000 / run.audioSeconds, 3);
      return [
        run.label,
        fixed(run.audioSeconds, 0),
        fixed(run.cpuSeconds / run.audioSeconds, 3),
        fixed(run.wallSeconds / run.audioSeconds, 3),
        perAudio(run.timings.vadMs),
        perAudio(run.timings.feedMs),
        perAudio(run.timings.partialMs),
        perAudio(run.timings.endMs.reduce((sum, ms) => sum + ms, 0)),
        `${run.utterances} / ${run.partials}`,
        `${fixed(run.wer * 100, 1)} %`,
        `${fixed(percentile(run.timings.endMs, 50), 0)} / ${fixed(percentile(run.timings.endMs, 95), 0)} / ${fixed(Math.max(...run.timings.endMs), 0)}`,
      ];
    });
    const markdown = [
      `One live session's recognition in-process: ${minutes > 0 ? `${minutes} min of English speech, then ` : ''}the 15 human-reference clips (one session each), fed in ${APPEND_MS} ms pieces as fast as it goes`,
      `(${machine.cpuModel}, ${machine.cpus} CPUs); load average at start ${loadAtStart}, at end ${loadAverage()}.`,
      '',
      markdownTable(
        [
          'decoder setting',
          'audio (s)',
          'CPU s per audio s',
          'wall s per audio s',
          'VAD',
          'feed',
          'partials',
          'utterance ends',
          'utterances / partials',
          'streamed WER (15 clips)',
          'one utterance end p50 / p95 / max (ms)',
        ],
        rows,
      ),
    ].join('\n');
    publish('realtime-capacity', markdown, { minutes, runs, loadAtStart });
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
