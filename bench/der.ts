/**
 * Diarization benchmark on the shared clips.
 *
 *   npx tsc -p tsconfig.bench.json && node dist-bench/bench/der.js
 *   node dist-bench/bench/der.js --speech reference     # oracle speech regions from the RTTM (clustering only)
 *   node dist-bench/bench/der.js --timing /tmp/long-10min.wav [/tmp/long-60min.wav ...]
 *   DIARIZER_SETTINGS='{"mergeThreshold":0.9}' node dist-bench/bench/der.js   # tuning overrides
 *
 * DER = (missed + false alarm + confusion) / reference speech, overlapped speech scored (counted per speaker).
 * Speech comes from the project's Silero VAD unless --speech reference is given. The diarizer session is fed
 * chunk by chunk, as the pipeline feeds it while recognising (chunks planned by planChunks with the settings
 * below); --whole feeds each file as one stretch instead, for comparison.
 */
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { decodeToPcm } from '../src/engine/audio/ffmpeg-decoder';
import {
  ClassicalDiarizer,
  type ClassicalDiarizerSettings,
} from '../src/engine/diarization/classical.diarizer';
import { diarizeInStretches, wholeFile } from '../src/engine/diarization/diarize-stretches';
import { parseRttm } from '../src/engine/diarization/rttm';
import { defaultEngineSettings } from '../src/engine/engine-settings';
import type { Pcm, SpeakerHints, SpeakerTurn, TimeSpan } from '../src/engine/engine.types';
import { SileroSpeechDetector } from '../src/engine/speech/silero-speech-detector';
import { planChunks, type ChunkingOptions } from '../src/engine/speech/speech-chunker';
import { sharedAudio as audio } from './lib/bench-audio';
import {
  combineDer,
  COUNT_ONLY_CLIPS,
  diarizationErrorRate,
  RTTM_CLIPS,
  type DerResult,
  type Turn,
} from './lib/der';

/** English single-speaker clips (MANIFEST.tsv speakers = 1, language en). */
const SOLO_CLIPS = [
  'whisper.cpp/jfk.wav',
  'openai-whisper/jfk.flac',
  'coqui-stt/LDC93S1.wav',
  'coqui-stt/LDC93S1_opus.opus',
  'coqui-stt/LDC93S1_pcms16le_1_8000.wav',
  'pocketsphinx/goforward.wav',
  'pocketsphinx/sense_and_sensibility_01_austen_64kb-0870.wav',
  'pocketsphinx/sense_and_sensibility_01_austen_64kb-0920.wav',
  'pocketsphinx/cards_005.wav',
  'wenet/librispeech-1995-1837-0001.wav',
  'lhotse/2412-153948-0000.flac',
  'lhotse/LJ002-0020.wav',
  'speechbrain/LJ050-0131.wav',
  'lhotse/ES2011a.Headset-0-40s-46s.wav',
  'picovoice-leopard/test.wav',
  'picovoice-cheetah/test_en_norm.wav',
  'speech-to-phrase/en_whats_the_weather_like_in_New_York.wav',
  'whisper.cpp-mm1/mm1.wav',
  'faster-whisper/multilingual.mp3',
];

const detector = new SileroSpeechDetector(defaultEngineSettings().speech);

/** The recognition chunks the streaming pipeline feeds the diarizer. */
const CHUNKING: ChunkingOptions = { paddingSeconds: 0.3, maxChunkSeconds: 25, breakSilenceSeconds: 2 };
let feedWhole = false;

/** Diarizes as the pipeline does: one session, fed the recognition chunks in order with the speech in each. */
function diarize(
  diarizer: ClassicalDiarizer,
  pcm: Pcm,
  speech: readonly TimeSpan[],
  hints: SpeakerHints,
): Promise<SpeakerTurn[]> {
  const duration = pcm.samples.length / pcm.sampleRate;
  const stretches = feedWhole ? wholeFile(pcm) : planChunks(speech, duration, CHUNKING);
  return diarizeInStretches(diarizer, pcm, speech, stretches, hints);
}

function settingsFromEnvironment(): Partial<ClassicalDiarizerSettings> {
  const raw = process.env.DIARIZER_SETTINGS;
  return raw ? (JSON.parse(raw) as Partial<ClassicalDiarizerSettings>) : {};
}

function mergedSpeech(turns: readonly TimeSpan[]): TimeSpan[] {
  const merged: TimeSpan[] = [];
  for (const turn of [...turns].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && turn.start <= last.end) last.end = Math.max(last.end, turn.end);
    else merged.push({ start: turn.start, end: turn.end });
  }
  return merged;
}

const percent = (value: number): string => `${(100 * value).toFixed(1)}%`.padStart(7);
const describe = (result: Omit<DerResult, 'mapping'>): string =>
  `${percent(result.der)} (miss ${percent(result.missed / result.total)}, fa ${percent(result.falseAlarm / result.total)}, conf ${percent(result.confusion / result.total)})`;

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--whole');
  feedWhole = process.argv.includes('--whole');
  const diarizer = new ClassicalDiarizer(settingsFromEnvironment());
  if (args[0] === '--timing') {
    for (const file of args.slice(1)) await timeFile(diarizer, file);
    return;
  }
  const oracleSpeech = args[0] === '--speech' && args[1] === 'reference';
  console.log(
    `speech regions: ${oracleSpeech ? 'reference RTTM (oracle)' : 'Silero VAD'}; overlap scored; ` +
      `fed ${feedWhole ? 'as one stretch per file' : `in recognition chunks (${JSON.stringify(CHUNKING)})`}\n`,
  );

  const rows: Record<string, Record<string, DerResult[]>> = {};
  const record = (system: string, collar: string, result: DerResult): void => {
    ((rows[system] ??= {})[collar] ??= []).push(result);
  };
  for (const clip of RTTM_CLIPS) {
    const pcm = await decodeToPcm(audio(clip));
    const reference: Turn[] = parseRttm(fs.readFileSync(audio(clip).replace(/\.wav$/, '.rttm'), 'utf8'));
    const speakers = new Set(reference.map((turn) => turn.speaker)).size;
    const speech = oracleSpeech ? mergedSpeech(reference) : await detector.detect(pcm);
    const systems: Record<string, SpeakerTurn[]> = {
      'one speaker': speech.map((span) => ({ ...span, speaker: 'SPEAKER_00' })),
      'classical, no hint': await diarize(diarizer, pcm, speech, {}),
      'classical, exact hint': await diarize(diarizer, pcm, speech, { exact: speakers }),
    };
    console.log(`${clip} (${speakers} speakers)`);
    for (const [system, hypothesis] of Object.entries(systems)) {
      const found = new Set(hypothesis.map((turn) => turn.speaker)).size;
      const cells = [0.25, 0].map((collar) => {
        const result = diarizationErrorRate(reference, hypothesis, { collar, skipOverlap: false });
        record(system, String(collar), result);
        return `collar ${collar}: ${describe(result)}`;
      });
      console.log(`  ${system.padEnd(22)} ${found} spk  ${cells.join('  ')}`);
    }
  }
  console.log('\nOverall (time-weighted over the RTTM clips)');
  for (const [system, byCollar] of Object.entries(rows)) {
    const cells = Object.entries(byCollar).map(
      ([collar, results]) => `collar ${collar}: ${describe(combineDer(results))}`,
    );
    console.log(`  ${system.padEnd(22)} ${cells.join('  ')}`);
  }

  console.log('\nSpeaker count without hints');
  let soloCorrect = 0;
  for (const clip of SOLO_CLIPS) {
    const found = await countSpeakers(diarizer, clip, {});
    if (found === 1) soloCorrect++;
    console.log(`  ${clip.padEnd(60)} expected 1, found ${found} ${found === 1 ? 'ok' : 'WRONG'}`);
  }
  for (const [clip, expected] of COUNT_ONLY_CLIPS) {
    const found = await countSpeakers(diarizer, clip, {});
    console.log(
      `  ${clip.padEnd(60)} expected ${expected}, found ${found} ${found === expected ? 'ok' : 'WRONG'}`,
    );
  }
  console.log(`  single-speaker clips counted as one speaker: ${soloCorrect}/${SOLO_CLIPS.length}`);
}

async function countSpeakers(
  diarizer: ClassicalDiarizer,
  clip: string,
  hints: SpeakerHints,
): Promise<number> {
  const pcm = await decodeToPcm(audio(clip));
  const speech = await detector.detect(pcm);
  const turns = await diarize(diarizer, pcm, speech, hints);
  return new Set(turns.map((turn) => turn.speaker)).size;
}

async function timeFile(diarizer: ClassicalDiarizer, file: string): Promise<void> {
  let started = performance.now();
  const pcm: Pcm = await decodeToPcm(file);
  const decodeMs = performance.now() - started;
  started = performance.now();
  const speech = await detector.detect(pcm);
  const vadMs = performance.now() - started;
  started = performance.now();
  const turns = await diarize(diarizer, pcm, speech, {});
  const diarizeMs = performance.now() - started;
  const minutes = pcm.samples.length / pcm.sampleRate / 60;
  const speechSeconds = speech.reduce((sum, span) => sum + span.end - span.start, 0);
  console.log(
    `${file}: ${minutes.toFixed(1)} min, ${speechSeconds.toFixed(0)} s speech; decode ${decodeMs.toFixed(0)} ms, ` +
      `VAD ${vadMs.toFixed(0)} ms, diarize ${diarizeMs.toFixed(0)} ms -> ${new Set(turns.map((t) => t.speaker)).size} speakers, ${turns.length} turns`,
  );
  // Worst case for the diarizer: the whole file counted as speech, in 20 s spans.
  const everything: TimeSpan[] = [];
  for (let start = 0; start < minutes * 60; start += 20)
    everything.push({ start, end: Math.min(minutes * 60, start + 20) });
  started = performance.now();
  const all = await diarize(diarizer, pcm, everything, {});
  console.log(
    `  same file, all ${(minutes * 60).toFixed(0)} s as speech: diarize ${(performance.now() - started).toFixed(0)} ms -> ` +
      `${new Set(all.map((t) => t.speaker)).size} speakers, ${all.length} turns`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
