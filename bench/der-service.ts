/**
 * Diarization through the running service: DER from the speaker labels of the returned words, and the speaker
 * count on the single-speaker English clips.
 *
 *   npx tsc -p tsconfig.bench.json && node dist-bench/bench/der-service.js --service URL --api-key KEY
 *   npm run bench:der            # against a throwaway service (bench/run-service.ts)
 *
 * The hypothesis is word-level: every returned word is a turn [start, end] of its speaker, so the gaps between
 * words count as no speech (missed speech where the reference has speech). This is what a client of the API can
 * reconstruct; it is stricter than scoring the diarizer's own turns (bench/der.ts). Baseline: the same word turns
 * all given one speaker. Each RTTM clip is sent twice: without a hint, and with num_speakers = reference count.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseRttm } from '../src/engine/diarization/rttm';
import { requireSharedAudio } from '../test/support/shared-paths';
import {
  combineDer,
  COUNT_ONLY_CLIPS,
  diarizationErrorRate,
  RTTM_CLIPS,
  type DerResult,
  type Turn,
} from './lib/der';
import {
  serviceTargetFromArguments,
  transcribeThroughService,
  type ServiceTarget,
} from './lib/service-client';
import { wordTurns } from './lib/word-turns';

const AUDIO_DIR = requireSharedAudio('The DER service benchmark');

const COLLARS = [0.25, 0];

/** English (including en+de) clips with one speaker, from MANIFEST.tsv. */
function soloClips(): string[] {
  const [header, ...rows] = fs.readFileSync(path.join(AUDIO_DIR, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const columns = header.split('\t');
  return rows
    .map((row) => row.split('\t'))
    .filter((cells) => cells[columns.indexOf('language')].startsWith('en'))
    .filter((cells) => cells[columns.indexOf('speakers')].startsWith('1'))
    .map((cells) => cells[columns.indexOf('path')]);
}

const percent = (value: number): string => `${(100 * value).toFixed(1)} %`;
const describe = (result: Omit<DerResult, 'mapping'>): string =>
  `${percent(result.der)} (miss ${percent(result.missed / result.total)}, FA ${percent(result.falseAlarm / result.total)}, conf ${percent(result.confusion / result.total)})`;

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

async function speakersOf(target: ServiceTarget, clip: string, fields: Record<string, string> = {}) {
  const run = await transcribeThroughService(target, path.join(AUDIO_DIR, clip), {
    language: 'en',
    ...fields,
  });
  const { transcription } = run;
  if (transcription.status !== 'completed') {
    console.error(`  ${clip}: ${transcription.status} ${transcription.errorMessage ?? ''}`);
  }
  const words = transcription.resultJson?.words ?? [];
  const labels = new Set(words.map((word) => word.speaker).filter((speaker) => speaker !== null));
  return { run, words, labels };
}

async function main(): Promise<void> {
  const target = serviceTargetFromArguments(process.argv);
  if (!target) throw new Error('usage: der-service.js --service URL --api-key KEY (or npm run bench:der)');

  const systems = ['one speaker (same words)', 'service, no hint', 'service, num_speakers = reference'];
  const results: Record<string, Record<number, DerResult[]>> = {};
  const derRows: string[][] = [];
  for (const clip of RTTM_CLIPS) {
    const reference: Turn[] = parseRttm(
      fs.readFileSync(path.join(AUDIO_DIR, clip).replace(/\.wav$/, '.rttm'), 'utf8'),
    );
    const referenceSpeakers = new Set(reference.map((turn) => turn.speaker)).size;
    const plain = await speakersOf(target, clip);
    const hinted = await speakersOf(target, clip, { num_speakers: String(referenceSpeakers) });
    const hypotheses: Array<[string, Turn[], string]> = [
      [systems[0], wordTurns(plain.words, 'ONE'), '1'],
      [
        systems[1],
        wordTurns(plain.words),
        `${plain.run.transcription.speakerCount ?? '–'} (labels ${plain.labels.size})`,
      ],
      [
        systems[2],
        wordTurns(hinted.words),
        `${hinted.run.transcription.speakerCount ?? '–'} (labels ${hinted.labels.size})`,
      ],
    ];
    for (const [system, hypothesis, found] of hypotheses) {
      const cells = COLLARS.map((collar) => {
        const result = diarizationErrorRate(reference, hypothesis, { collar, skipOverlap: false });
        ((results[system] ??= {})[collar] ??= []).push(result);
        return describe(result);
      });
      derRows.push([clip, String(referenceSpeakers), system, found, ...cells]);
    }
    console.error(
      `${clip}: ${plain.words.length} words, ${plain.run.transcription.speakerCount} speakers (hint: ${hinted.run.transcription.speakerCount}); ` +
        `job ${plain.run.endToEndSeconds.toFixed(2)} s`,
    );
  }
  for (const system of systems) {
    derRows.push([
      '**overall (time-weighted)**',
      '',
      system,
      '',
      ...COLLARS.map((collar) => describe(combineDer(results[system][collar]))),
    ]);
  }
  console.log('## DER through the service (word-level turns from resultJson.words; overlap scored)\n');
  console.log(
    table(['clip', 'ref speakers', 'system', 'speakers found', 'DER collar 0.25', 'DER collar 0'], derRows),
  );

  const countRows: string[][] = [];
  let correct = 0;
  const solo = soloClips();
  for (const clip of solo) {
    const { run, labels } = await speakersOf(target, clip);
    const count = run.transcription.speakerCount;
    if (count === 1) correct++;
    countRows.push([
      clip,
      '1',
      String(count ?? '–'),
      String(labels.size),
      count === 1 ? 'ok' : `**WRONG** (${run.transcription.status})`,
    ]);
  }
  for (const [clip, expected] of COUNT_ONLY_CLIPS) {
    const { run, labels } = await speakersOf(target, clip);
    const count = run.transcription.speakerCount;
    countRows.push([
      clip,
      String(expected),
      String(count ?? '–'),
      String(labels.size),
      count === expected ? 'ok' : 'wrong',
    ]);
  }
  console.log('\n## Speaker count through the service (no hint)\n');
  console.log(table(['clip', 'expected', 'speakerCount', 'distinct word labels', ''], countRows));
  console.log(`\nsingle-speaker English clips with speakerCount 1: ${correct}/${solo.length}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
