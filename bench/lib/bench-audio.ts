/**
 * Audio inputs for the service benchmarks, made from the English clips of the larger shared audio set
 * (../shared/audio or SHARED_DIR; only the few clips the tests need are in the repository) or generated with
 * ffmpeg in the temp folder. Without the shared set, a benchmark stops with a message saying where it looked.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { requireSharedAudio } from '../../test/support/shared-paths';

export interface SharedClip {
  path: string;
  seconds: number;
}

/** The rows of the shared set's MANIFEST.tsv, each as column name → cell ('' where a row has no cell). */
export function sharedManifest(): Array<Record<string, string>> {
  const audio = requireSharedAudio('This benchmark');
  const [header, ...rows] = fs.readFileSync(path.join(audio, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const columns = header.split('\t');
  return rows.map((line) => {
    const cells = line.split('\t');
    return Object.fromEntries(columns.map((name, index) => [name, cells[index] ?? '']));
  });
}

/** Absolute path of a file of the shared audio set, from its MANIFEST.tsv path. */
export function sharedAudio(relativePath: string): string {
  return path.join(requireSharedAudio('This benchmark'), relativePath);
}

/** English single-speaker clips with speech (≥ 1.5 s), from MANIFEST.tsv, in manifest order. */
export function englishClips(): SharedClip[] {
  return sharedManifest()
    .filter((row) => row.language === 'en' && row.speakers === '1')
    .map((row) => ({ path: sharedAudio(row.path), seconds: Number(row.duration_s) }))
    .filter((clip) => clip.seconds >= 1.5 && fs.existsSync(clip.path));
}

/** A batch of n clips, cycling through the English clips. */
export function clipBatch(n: number): SharedClip[] {
  const clips = englishClips();
  if (clips.length === 0) throw new Error(`no English clips in ${requireSharedAudio('This benchmark')}`);
  return Array.from({ length: n }, (_, index) => clips[index % clips.length]);
}

export function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args], { stdio: 'inherit' });
}

/** Any ffmpeg-readable file → a 16 kHz mono 16-bit WAV (what PocketSphinx's own CLI reads). */
export function toMonoWav16k(input: string, output: string): string {
  ffmpeg(['-i', input, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', output]);
  return output;
}

/** Duration in seconds of a media file, from ffprobe. */
export function probeSeconds(file: string): number {
  const output = execFileSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=nw=1:nk=1', file],
    { encoding: 'utf8' },
  );
  return Number(output.trim());
}

export function benchTempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `stt-bench-${label}-`));
}

/**
 * Writes a file of real English speech of about `minutes` minutes: the English clips (normalised to 16 kHz
 * mono) concatenated and looped with ffmpeg's concat demuxer, then encoded as `format` (mp3 64 kb/s or wav).
 */
export function longSpeechFile(directory: string, minutes: number, format: 'mp3' | 'wav' = 'mp3'): string {
  const clips = englishClips();
  const normalised = clips.map((clip, index) => {
    const target = path.join(directory, `clip-${index}.wav`);
    if (!fs.existsSync(target)) toMonoWav16k(clip.path, target);
    return { path: target, seconds: probeSeconds(target) };
  });
  const lines: string[] = [];
  let total = 0;
  for (let index = 0; total < minutes * 60; index++) {
    const clip = normalised[index % normalised.length];
    lines.push(`file '${clip.path}'`);
    total += clip.seconds;
  }
  const list = path.join(directory, `concat-${minutes}.txt`);
  fs.writeFileSync(list, lines.join('\n') + '\n');
  const output = path.join(directory, `speech-${minutes}min.${format}`);
  const codec = format === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '64k'] : ['-c:a', 'pcm_s16le'];
  ffmpeg([
    '-f',
    'concat',
    '-safe',
    '0',
    '-i',
    list,
    '-t',
    String(minutes * 60),
    '-ac',
    '1',
    ...codec,
    output,
  ]);
  return output;
}

export interface ReferenceClip {
  /** As in MANIFEST.tsv. */
  path: string;
  /** Absolute path of the audio file. */
  file: string;
  reference: string;
}

/**
 * The 15 English single-speaker clips whose reference was written by people (MANIFEST ref_kind neither a
 * model's output nor Whisper-derived): the WER tables' selection (bench/wer.ts, bench/pocketsphinx-tuning.ts).
 */
export function humanReferenceClips(): ReferenceClip[] {
  return sharedManifest()
    .filter(
      (row) =>
        row.language === 'en' &&
        row.speakers.startsWith('1') &&
        row.ref_transcript !== '' &&
        !row.ref_kind.includes('MODEL OUTPUT') &&
        !/whisper/i.test(row.ref_kind),
    )
    .map((row) => ({
      path: row.path,
      file: sharedAudio(row.path),
      reference: fs.readFileSync(sharedAudio(row.ref_transcript), 'utf8'),
    }));
}

/** A clip as 16 kHz mono PCM16 samples (ffmpeg, through a WAV in `directory`). */
export function pcm16k(file: string, directory: string): Int16Array {
  const wav = fs.readFileSync(toMonoWav16k(file, path.join(directory, `pcm-${path.basename(file)}.wav`)));
  return wavSamples(wav);
}

/** The samples of a PCM16 WAV (after its `data` chunk header: ffmpeg may write a LIST chunk before it). */
export function wavSamples(wav: Buffer): Int16Array {
  const data = wav.indexOf('data', 12, 'latin1');
  const bytes = wav.subarray(data + 8, data + 8 + wav.readUInt32LE(data + 4));
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
