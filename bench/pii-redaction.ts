/**
 * Recall and precision of PII redaction per entity type, on the generated utterances of
 * test/fixtures/pii/utterances.json (numbers said as words and written as digits, as recognisers write them;
 * plus utterances whose numbers are no PII). Each utterance is redacted with every policy, twice: as the
 * recogniser wrote it, and after number formatting (the order the job applies the passes in).
 *
 * An expected entity counts as found when findings of its type cover all of its words (a partly redacted
 * number still gives digits away); a finding is right when an expected entity of its type overlaps it.
 * recall = expected entities found / expected, precision = right findings / findings.
 *
 *   npm run bench:pii
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TranscriptWord } from '../src/engine/engine.types';
import { PII_POLICIES, type PiiPolicy } from '../src/transcriptions/text/pii-redaction';
import { detectPii } from '../src/transcriptions/text/pii-redaction';
import { formatNumbers } from '../src/transcriptions/text/number-formatting';
import { wordKeys } from '../src/transcriptions/text/transcript-words';
import { fixed, loadAverage, markdownTable, publish, runMain } from './lib/measure';

interface Utterance {
  id: string;
  text: string;
  entities: Array<{ policy: PiiPolicy; from: number; to: number }>;
}

const FIXTURE = path.join(__dirname, '..', '..', 'test', 'fixtures', 'pii', 'utterances.json');

interface Tally {
  expected: number;
  found: number;
  recalled: number;
  right: number;
}

/** Words one second apart, so a span's times are its word indices whatever merged them. */
function timed(text: string): TranscriptWord[] {
  return text.split(' ').map((word, index) => ({ word, start: index, end: index + 0.5, speaker: null }));
}

function measure(utterances: readonly Utterance[], formatted: boolean): Map<PiiPolicy, Tally> {
  const tallies = new Map<PiiPolicy, Tally>(
    PII_POLICIES.map((policy) => [policy, { expected: 0, found: 0, recalled: 0, right: 0 }]),
  );
  const misses: string[] = [];
  for (const utterance of utterances) {
    const words = formatted ? formatNumbers(timed(utterance.text)) : timed(utterance.text);
    const found = detectPii(wordKeys(words)).map((span) => ({
      policy: span.policy,
      start: words[span.from].start,
      end: words[span.to].end,
    }));
    const expected = utterance.entities.map((entity) => ({
      policy: entity.policy,
      start: entity.from,
      end: entity.to + 0.5,
    }));
    const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }): boolean =>
      a.start < b.end && b.start < a.end;
    for (const entity of expected) {
      const tally = tallies.get(entity.policy)!;
      tally.expected++;
      if (
        covered(
          found.filter((one) => one.policy === entity.policy),
          entity,
        )
      )
        tally.recalled++;
      else misses.push(`${formatted ? 'formatted' : 'raw'} ${utterance.id}: missed ${entity.policy}`);
    }
    for (const one of found) {
      const tally = tallies.get(one.policy)!;
      tally.found++;
      if (expected.some((entity) => entity.policy === one.policy && overlaps(one, entity))) tally.right++;
      else misses.push(`${formatted ? 'formatted' : 'raw'} ${utterance.id}: wrongly ${one.policy}`);
    }
  }
  for (const miss of misses) console.error(`[bench] ${miss}`);
  return tallies;
}

/** Whether the spans together cover all of `entity` (a partly redacted number still gives digits away). */
function covered(
  spans: ReadonlyArray<{ start: number; end: number }>,
  entity: { start: number; end: number },
): boolean {
  let reached = entity.start;
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    if (span.start > reached + 0.5) break;
    reached = Math.max(reached, span.end);
  }
  return reached >= entity.end;
}

const ratio = (part: number, whole: number): string => (whole === 0 ? '–' : fixed(part / whole, 3));

runMain(async () => {
  const { utterances } = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { utterances: Utterance[] };
  const load = loadAverage();
  const raw = measure(utterances, false);
  const formatted = measure(utterances, true);
  const rows = PII_POLICIES.map((policy) => {
    const a = raw.get(policy)!;
    const b = formatted.get(policy)!;
    return [
      policy,
      String(a.expected),
      ratio(a.recalled, a.expected),
      ratio(a.right, a.found),
      ratio(b.recalled, b.expected),
      ratio(b.right, b.found),
    ];
  });
  const markdown = [
    `${utterances.length} utterances (test/fixtures/pii/utterances.json), load average ${load}.`,
    '',
    markdownTable(
      [
        'entity type',
        'expected',
        'recall (as recognised)',
        'precision (as recognised)',
        'recall (numbers formatted)',
        'precision (numbers formatted)',
      ],
      rows,
    ),
  ].join('\n');
  publish('pii-redaction', markdown, {
    raw: Object.fromEntries(raw),
    formatted: Object.fromEntries(formatted),
  });
});
