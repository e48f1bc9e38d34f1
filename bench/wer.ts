/**
 * Word error rate and real-time factor on the English single-speaker clips of the shared audio set.
 *
 *   npx tsc -p tsconfig.bench.json && node dist-bench/bench/wer.js [--only SUBSTRING]
 *   node dist-bench/bench/wer.js --service http://localhost:3000 --api-key svc_live_...
 *
 * Per clip: (a) the bare pocketsphinx_continuous CLI on a 16 kHz mono WAV made by ffmpeg, (b) our pipeline
 * in-process (decode, Silero VAD, chunked in-process PocketSphinx), or (c) with --service, the running service.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SHARED_DIR } from '../test/support/shared-paths';
import { decodeToPcm } from '../src/engine/audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../src/engine/engine-settings';
import type { Diarizer } from '../src/engine/engine.types';
import { TranscriptionPipeline } from '../src/engine/pipeline/transcription-pipeline';
import { PocketSphinxRecognizer } from '../src/engine/pocketsphinx/pocketsphinx-recognizer';
import { SileroSpeechDetector } from '../src/engine/speech/silero-speech-detector';
import { overallWordErrorRate, wordErrorRate, type WordErrorRate } from './lib/word-error-rate';

interface Clip {
  path: string;
  reference: string;
  group: 'human reference' | 'Whisper-derived reference';
}

interface Measurement {
  wer: WordErrorRate;
  rtf: number;
  text: string;
}

const AUDIO_DIR = path.join(SHARED_DIR, 'audio');

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** English, one speaker, a reference text that is not a model's output. */
function selectClips(): Clip[] {
  const [header, ...rows] = fs.readFileSync(path.join(AUDIO_DIR, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const columns = header.split('\t');
  const only = argument('--only');
  const clips: Clip[] = [];
  for (const row of rows) {
    const cells = row.split('\t');
    const field = (name: string): string => cells[columns.indexOf(name)] ?? '';
    if (field('language') !== 'en' || !field('speakers').startsWith('1') || !field('ref_transcript'))
      continue;
    const kind = field('ref_kind');
    if (kind.includes('MODEL OUTPUT')) continue;
    if (only && !field('path').includes(only)) continue;
    clips.push({
      path: field('path'),
      reference: fs.readFileSync(path.join(AUDIO_DIR, field('ref_transcript')), 'utf8'),
      group: /whisper/i.test(kind) ? 'Whisper-derived reference' : 'human reference',
    });
  }
  return clips;
}

function seconds(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e9;
}

const MODEL = '/usr/share/pocketsphinx/model/en-us';

function measureCli(clip: Clip, directory: string, duration: number): Measurement {
  const wav = path.join(directory, 'cli.wav');
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-i',
    path.join(AUDIO_DIR, clip.path),
    '-ac',
    '1',
    '-ar',
    '16000',
    '-c:a',
    'pcm_s16le',
    wav,
  ]);
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
    { stdio: ['ignore', 'pipe', 'ignore'] },
  )
    .toString('utf8')
    .replace(/\s+/g, ' ')
    .trim();
  return { text, rtf: seconds(started) / duration, wer: wordErrorRate(clip.reference, text) };
}

const singleSpeaker: Diarizer = {
  name: 'single-speaker',
  diarize: async (pcm) => [{ start: 0, end: pcm.samples.length / pcm.sampleRate, speaker: 'SPEAKER_00' }],
};

async function measurePipeline(
  pipeline: TranscriptionPipeline,
  clip: Clip,
  duration: number,
): Promise<Measurement> {
  const started = process.hrtime.bigint();
  let text = '';
  try {
    const result = await pipeline.run({
      audioPath: path.join(AUDIO_DIR, clip.path),
      model: 'standard',
      language: 'en',
      vocabulary: [],
      speakers: {},
    });
    text = result.text;
  } catch (error) {
    text = '';
    console.error(`  pipeline failed on ${clip.path}: ${(error as Error).message}`);
  }
  return { text, rtf: seconds(started) / duration, wer: wordErrorRate(clip.reference, text) };
}

async function measureService(
  baseUrl: string,
  apiKey: string,
  clip: Clip,
  duration: number,
): Promise<Measurement> {
  const headers = { Authorization: `Bearer ${apiKey}`, 'X-API-Key': apiKey };
  const started = process.hrtime.bigint();
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(path.join(AUDIO_DIR, clip.path))]), path.basename(clip.path));
  form.append('language', 'en');
  const created = await fetch(`${baseUrl}/v1/transcriptions`, { method: 'POST', body: form, headers });
  if (created.status !== 202)
    throw new Error(`upload of ${clip.path} answered ${created.status}: ${await created.text()}`);
  const { data } = (await created.json()) as { data: { id: string } };
  const deadline = Date.now() + 10 * 60 * 1000;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`${clip.path} did not complete in 10 minutes`);
    const status = (await (
      await fetch(`${baseUrl}/v1/transcriptions/${data.id}/status`, { headers })
    ).json()) as {
      data: { status: string };
    };
    if (status.data.status === 'completed') break;
    if (status.data.status === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const record = (await (await fetch(`${baseUrl}/v1/transcriptions/${data.id}`, { headers })).json()) as {
    data: { resultText: string | null };
  };
  const text = record.data.resultText ?? '';
  return { text, rtf: seconds(started) / duration, wer: wordErrorRate(clip.reference, text) };
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)} %`;
}

async function decodeBenchmark(directory: string): Promise<void> {
  const mp3 = path.join(directory, 'ten-minutes.mp3');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=600',
    '-ac',
    '2',
    '-ar',
    '44100',
    '-b:a',
    '128k',
    mp3,
  ]);
  const started = process.hrtime.bigint();
  const pcm = await decodeToPcm(mp3);
  console.log(
    `decode of a 10-minute 128 kb/s stereo MP3: ${seconds(started).toFixed(2)} s for ${(pcm.samples.length / 16000).toFixed(0)} s of audio`,
  );
}

async function main(): Promise<void> {
  const service = argument('--service');
  const apiKey = argument('--api-key') ?? '';
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
  const results = new Map<string, { cli: WordErrorRate[]; ours: WordErrorRate[] }>();
  const second = service ? 'service' : 'pipeline';
  console.log(`clip\tseconds\tCLI WER\tCLI RTF\t${second} WER\t${second} RTF\t${second} text`);
  try {
    // Warm-up: model loading is paid once per engine process, not per clip.
    if (!service && clips.length > 0) await measurePipeline(pipeline, clips[0], 1);
    for (const clip of clips) {
      const pcm = await decodeToPcm(path.join(AUDIO_DIR, clip.path));
      const duration = pcm.samples.length / pcm.sampleRate;
      const cli = measureCli(clip, directory, duration);
      const ours = service
        ? await measureService(service.replace(/\/+$/, ''), apiKey, clip, duration)
        : await measurePipeline(pipeline, clip, duration);
      const group = results.get(clip.group) ?? { cli: [], ours: [] };
      group.cli.push(cli.wer);
      group.ours.push(ours.wer);
      results.set(clip.group, group);
      console.log(
        [
          clip.path,
          duration.toFixed(2),
          percent(cli.wer.rate),
          cli.rtf.toFixed(3),
          percent(ours.wer.rate),
          ours.rtf.toFixed(3),
          ours.text,
        ].join('\t'),
      );
    }
    for (const [group, { cli, ours }] of results) {
      console.log(
        `OVERALL (${group}, ${cli.length} clips, ${cli.reduce((sum, r) => sum + r.referenceWords, 0)} words): CLI ${percent(overallWordErrorRate(cli))}, ${second} ${percent(overallWordErrorRate(ours))}`,
      );
    }
    if (!service) await decodeBenchmark(directory);
    console.log(`peak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  } finally {
    await recognizer.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
