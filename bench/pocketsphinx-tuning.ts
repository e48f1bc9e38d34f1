/**
 * PocketSphinx search settings: WER and recognition time of each setting on the 15 clips with human-written
 * references (MANIFEST.tsv; the same selection as bench/wer.ts), in one run.
 *
 *   npm run bench:pocketsphinx-tuning [-- --repeat 3]
 *
 * Every clip is decoded (ffmpeg), its speech found (Silero VAD) and cut into chunks (planChunks) once, exactly as
 * the pipeline does with the default settings; then each setting's recogniser (created and warmed up before the
 * loop) recognises the same chunks. Only recognition is timed, clip by clip with the settings interleaved, so all
 * settings see the same machine load. --repeat N recognises every clip N times per setting and keeps the median
 * time (the text is the same each time: the decoder is deterministic). WER as in bench/wer.ts: lower case,
 * punctuation stripped, total edits over total reference words.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { requireSharedAudio } from '../test/support/shared-paths';
import { decodeToPcm } from '../src/engine/audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../src/engine/engine-settings';
import type { TimeSpan } from '../src/engine/engine.types';
import { PocketSphinxRecognizer } from '../src/engine/pocketsphinx/pocketsphinx-recognizer';
import {
  DEFAULT_POCKETSPHINX_SEARCH_PRESET,
  POCKETSPHINX_SEARCH_PRESETS,
  searchArguments,
  type PocketSphinxSearchSettings,
} from '../src/engine/pocketsphinx/search-presets';
import { SileroSpeechDetector } from '../src/engine/speech/silero-speech-detector';
import { planChunks } from '../src/engine/speech/speech-chunker';
import { fixed, loadAverage, markdownTable, median, numberArgument, runMain, seconds } from './lib/measure';
import { overallWordErrorRate, wordErrorRate, type WordErrorRate } from './lib/word-error-rate';

const AUDIO_DIR = requireSharedAudio('The PocketSphinx tuning benchmark');

interface Clip {
  path: string;
  reference: string;
  samples: Float32Array;
  chunks: TimeSpan[];
  sampleRate: number;
  duration: number;
}

interface Setting {
  name: string;
  search: PocketSphinxSearchSettings;
  recognizer: PocketSphinxRecognizer;
  seconds: number;
  results: WordErrorRate[];
}

/** English, one speaker, a human-written reference (not a model's output, not Whisper-derived). */
function humanReferenceClips(): Array<{ path: string; reference: string }> {
  const [header, ...rows] = fs.readFileSync(path.join(AUDIO_DIR, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const columns = header.split('\t');
  const clips: Array<{ path: string; reference: string }> = [];
  for (const row of rows) {
    const cells = row.split('\t');
    const field = (name: string): string => cells[columns.indexOf(name)] ?? '';
    const refKind = field('ref_kind');
    if (field('language') !== 'en' || !field('speakers').startsWith('1') || !field('ref_transcript'))
      continue;
    if (refKind.includes('MODEL OUTPUT') || /whisper/i.test(refKind)) continue;
    clips.push({
      path: field('path'),
      reference: fs.readFileSync(path.join(AUDIO_DIR, field('ref_transcript')), 'utf8'),
    });
  }
  return clips;
}

/** The presets, plus single changes to the default that separate the effect of beams from that of -lw. */
function settingsToMeasure(): Array<{ name: string; search: PocketSphinxSearchSettings }> {
  const base = POCKETSPHINX_SEARCH_PRESETS.default;
  return [
    { name: 'fast', search: POCKETSPHINX_SEARCH_PRESETS.fast },
    { name: 'fast beams, ds 1', search: { ...POCKETSPHINX_SEARCH_PRESETS.fast, ds: 1 } },
    { name: 'default', search: base },
    { name: 'default, lw 9.5', search: { ...base, lw: 9.5 } },
    { name: 'wide', search: POCKETSPHINX_SEARCH_PRESETS.wide },
    { name: 'wide, lw 9.5', search: { ...POCKETSPHINX_SEARCH_PRESETS.wide, lw: 9.5 } },
  ];
}

async function main(): Promise<void> {
  const repeat = numberArgument('--repeat', 1);
  const loadBefore = loadAverage();
  const engine = defaultEngineSettings();
  const detector = new SileroSpeechDetector(engine.speech);
  const clips: Clip[] = [];
  for (const clip of humanReferenceClips()) {
    const pcm = await decodeToPcm(path.join(AUDIO_DIR, clip.path));
    const duration = pcm.samples.length / pcm.sampleRate;
    const speech = await detector.detect(pcm);
    const chunks = planChunks(speech, duration, {
      paddingSeconds: engine.speech.paddingSeconds,
      maxChunkSeconds: engine.speech.maxChunkSeconds,
      breakSilenceSeconds: engine.speech.chunkBreakSilenceSeconds,
    });
    clips.push({ ...clip, samples: pcm.samples, chunks, sampleRate: pcm.sampleRate, duration });
  }
  const signal = new AbortController().signal;
  const options = { language: 'en', vocabulary: [], signal };
  const settings: Setting[] = [];
  for (const { name, search } of settingsToMeasure()) {
    const recognizer = new PocketSphinxRecognizer({ ...engine.pocketsphinx, search });
    // Model load happens here, outside the timed loop.
    await recognizer.recognize({ samples: clips[0].samples, offset: 0 }, options);
    settings.push({ name, search, recognizer, seconds: 0, results: [] });
  }
  try {
    for (const clip of clips) {
      const texts: string[] = [];
      for (const setting of settings) {
        const times: number[] = [];
        let text = '';
        for (let run = 0; run < repeat; run++) {
          const words: string[] = [];
          const started = process.hrtime.bigint();
          for (const chunk of clip.chunks) {
            const samples = clip.samples.subarray(
              Math.floor(chunk.start * clip.sampleRate),
              Math.ceil(chunk.end * clip.sampleRate),
            );
            const output = await setting.recognizer.recognize({ samples, offset: chunk.start }, options);
            words.push(...output.words.map((word) => word.word));
          }
          times.push(seconds(started));
          text = words.join(' ');
        }
        setting.seconds += median(times);
        setting.results.push(wordErrorRate(clip.reference, text));
        texts.push(`${setting.name}: "${text}"`);
      }
      console.error(`${clip.path} (${fixed(clip.duration)} s)\n  ${texts.join('\n  ')}`);
    }
  } finally {
    for (const setting of settings) await setting.recognizer.close();
  }
  const audio = clips.reduce((sum, clip) => sum + clip.duration, 0);
  const words = clips.reduce((sum, clip) => sum + wordErrorRate(clip.reference, '').referenceWords, 0);
  const reference = settings.find((setting) => setting.name === DEFAULT_POCKETSPHINX_SEARCH_PRESET);
  console.log(
    `## PocketSphinx search settings (${clips.length} human-reference clips, ${fixed(audio)} s, ${words} words; ` +
      `recognition only, median of ${repeat}; load before: ${loadBefore}, after: ${loadAverage()})\n`,
  );
  console.log(
    markdownTable(
      ['setting', 'arguments', 'WER', 'recognition s', 'RTF', 'time / default'],
      settings.map((setting) => [
        setting.name,
        `\`${searchArguments(setting.search).join(' ')}\``,
        `${(overallWordErrorRate(setting.results) * 100).toFixed(1)} %`,
        fixed(setting.seconds),
        fixed(setting.seconds / audio, 3),
        reference ? fixed(setting.seconds / reference.seconds) : '–',
      ]),
    ),
  );
}

runMain(main);
