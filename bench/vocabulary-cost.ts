/**
 * What a custom vocabulary costs a PocketSphinx job: a ~3 s clip (coqui-stt/LDC93S1.wav) recognised by a fresh
 * PocketSphinxRecognizer (model load + vocabulary + decode, as a job's engine pays them), with
 *
 *   - no vocabulary,
 *   - 500 words of the CMU dictionary (pronunciations from the dictionary, the common case),
 *   - 500 random words of 4–10 letters (unknown to the dictionary: letter-to-sound pronunciations),
 *   - 500 random words of MAX_VOCABULARY_WORD_LENGTH letters (the longest the API accepts),
 *   - 500 random words of 2,080 letters (what the API accepted before the cap; the engine now skips entries over
 *     the limit, as in a vocabulary saved before it; --skip-uncapped leaves it out).
 *
 * After the timed clip, each job also decodes EXTRA_CLIPS (other speakers and lengths, untimed), because a native
 * crash depends on which words the search hypothesises: a job counts as crashed unless it decoded them all.
 *
 * Each job runs in its own child process (a native crash ends only that job and is counted); the cases run
 * interleaved, --runs N times (default 3), and each case's median is compared with the no-vocabulary median of the
 * same run. Target: a full 500-word vocabulary makes a job at most 2× slower. Only the
 * recogniser is timed; the job's other stages (ffmpeg decode, VAD, diarization, the engine child's start) do not
 * depend on the vocabulary, so a whole job's ratio is smaller than this one.
 *
 *   npm run bench:vocabulary-cost [-- --runs 3] [--skip-uncapped]
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sharedAudio } from './lib/bench-audio';
import { decodeToPcm } from '../src/engine/audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../src/engine/engine-settings';
import { PocketSphinxRecognizer } from '../src/engine/pocketsphinx/pocketsphinx-recognizer';
import { dictionaryWords, randomWords } from '../src/engine/pocketsphinx/sample-vocabularies';
import { MAX_VOCABULARY_WORD_LENGTH } from '../src/vocabularies/vocabulary-word';
import {
  argument,
  fixed,
  loadAverage,
  markdownTable,
  median,
  numberArgument,
  runMain,
  seconds,
} from './lib/measure';

const CLIP = 'coqui-stt/LDC93S1.wav';
const EXTRA_CLIPS = [
  'pocketsphinx/goforward.wav',
  'wenet/librispeech-1995-1837-0001.wav',
  'pocketsphinx/cards_005.wav',
  'pocketsphinx/sense_and_sensibility_01_austen_64kb-0870.wav',
];
const WORDS = 500;
const UNCAPPED_LENGTH = 2080;

interface Case {
  name: string;
  vocabulary: string[];
  setup: number[];
  decode: number[];
  crashes: number;
  words: string;
}

interface ChildReport {
  setup?: number;
  decode?: number;
  words?: string;
  extraClips?: number;
}

/**
 * One job in a child process: a fresh recogniser takes the vocabulary and decodes 0.5 s of silence (model load +
 * vocabulary; the setup), then decodes the clip (timed) and the extra clips. A child keeps a native crash from ending
 * the whole bench.
 */
async function child(vocabularyFile: string): Promise<void> {
  const vocabulary = JSON.parse(fs.readFileSync(vocabularyFile, 'utf8')) as string[];
  const pcm = await decodeToPcm(sharedAudio(CLIP));
  const signal = new AbortController().signal;
  const options = { language: 'en', vocabulary, signal };
  let started = process.hrtime.bigint();
  const recognizer = new PocketSphinxRecognizer(defaultEngineSettings().pocketsphinx);
  await recognizer.recognize({ samples: new Float32Array(pcm.sampleRate / 2), offset: 0 }, options);
  process.stdout.write(`${JSON.stringify({ setup: seconds(started) })}\n`);
  started = process.hrtime.bigint();
  const output = await recognizer.recognize({ samples: pcm.samples, offset: 0 }, options);
  const words = output.words.map((word) => word.word).join(' ');
  process.stdout.write(`${JSON.stringify({ decode: seconds(started), words })}\n`);
  for (const [index, clip] of EXTRA_CLIPS.entries()) {
    const extra = await decodeToPcm(sharedAudio(clip));
    await recognizer.recognize({ samples: extra.samples, offset: 0 }, options);
    process.stdout.write(`${JSON.stringify({ extraClips: index + 1 })}\n`);
  }
  await recognizer.close();
}

function runChild(vocabularyFile: string): Promise<{ report: ChildReport; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const forked = spawn(process.execPath, [__filename, '--child', vocabularyFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    forked.stdout.on('data', (data: Buffer) => (output += data.toString('utf8')));
    forked.on('error', reject);
    forked.on('close', (_code, signal) => {
      const report: ChildReport = {};
      for (const line of output.split('\n').filter((text) => text.startsWith('{')))
        Object.assign(report, JSON.parse(line) as ChildReport);
      resolve({ report, signal });
    });
  });
}

async function main(): Promise<void> {
  const childFile = argument('--child');
  if (childFile) return child(childFile);
  const runs = numberArgument('--runs', 3);
  const load = loadAverage();
  const pcm = await decodeToPcm(sharedAudio(CLIP));
  const audioSeconds = pcm.samples.length / pcm.sampleRate;
  const make = (name: string, vocabulary: string[]): Case => ({
    name,
    vocabulary,
    setup: [],
    decode: [],
    crashes: 0,
    words: '',
  });
  const cases: Case[] = [
    make('no vocabulary', []),
    make(
      `${WORDS} dictionary words (every 200th of the CMU dictionary)`,
      dictionaryWords(defaultEngineSettings().pocketsphinx.dictionaryPath, WORDS),
    ),
    make(`${WORDS} random words of 4–10 letters`, randomWords(WORDS, 4, 10, 1)),
    make(
      `${WORDS} random words of ${MAX_VOCABULARY_WORD_LENGTH} letters (the cap)`,
      randomWords(WORDS, MAX_VOCABULARY_WORD_LENGTH, MAX_VOCABULARY_WORD_LENGTH, 2),
    ),
  ];
  if (!process.argv.includes('--skip-uncapped')) {
    cases.push(
      make(
        `${WORDS} random words of ${UNCAPPED_LENGTH} letters (refused by the API; a saved vocabulary from before the limit: skipped by the engine)`,
        randomWords(WORDS, UNCAPPED_LENGTH, UNCAPPED_LENGTH, 3),
      ),
    );
  }
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vocabulary-cost-'));
  try {
    for (let run = 0; run < runs; run++) {
      for (const [index, item] of cases.entries()) {
        const file = path.join(directory, `case-${index}.json`);
        fs.writeFileSync(file, JSON.stringify(item.vocabulary));
        const { report, signal } = await runChild(file);
        if (report.setup !== undefined) item.setup.push(report.setup);
        if (report.decode !== undefined) item.decode.push(report.decode);
        if (signal !== null || report.extraClips !== EXTRA_CLIPS.length) item.crashes += 1;
        if (report.words !== undefined) item.words = report.words;
        console.error(
          `run ${run + 1}: ${item.name}: setup ${fixed(report.setup)} s, decode ${fixed(report.decode)} s` +
            (signal
              ? ` (child ended by ${signal} after ${report.extraClips ?? 0} of ${EXTRA_CLIPS.length} extra clips)`
              : ` "${report.words}"`),
        );
      }
    }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
  const total = (item: Case): number[] =>
    item.decode.map((decode, index) => decode + (item.setup[index] ?? NaN));
  const baseline = median(total(cases[0]));
  console.log(
    `## Vocabulary cost (${CLIP}, ${fixed(audioSeconds)} s; fresh recogniser per job in a child process; ` +
      `median of ${runs}; crashes over it and ${EXTRA_CLIPS.length} more clips; load before: ${load}, after: ${loadAverage()})\n`,
  );
  console.log(
    markdownTable(
      [
        'vocabulary',
        'setup s (load + vocabulary)',
        'decode s',
        'job s',
        'ratio to no vocabulary',
        'crashed',
        'text',
      ],
      cases.map((item) => [
        item.name,
        fixed(median(item.setup)),
        item.decode.length > 0 ? fixed(median(item.decode)) : '–',
        item.decode.length > 0 ? fixed(median(total(item))) : '–',
        item.decode.length > 0 ? fixed(median(total(item)) / baseline) : '–',
        `${item.crashes} of ${runs}`,
        item.words,
      ]),
    ),
  );
}

runMain(main);
