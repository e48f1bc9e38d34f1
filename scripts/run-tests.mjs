#!/usr/bin/env node
// `npm test`'s Jest part: the suite split into lanes, run two at a time. Most of the e2e, chaos and browser
// time is spent waiting on other processes (workers, engines, Chromium, timeouts that a test provokes), so two
// Jest processes side by side finish the suite in far less wall time than one `jest --runInBand`. Each lane is
// its own `jest --runInBand` with its own database and Redis prefix (test/support/global-setup.ts), so lanes
// never see each other's rows or jobs.
//
// Output: every line of a lane, prefixed with its name, as it comes; then the per-project times and skipped
// tests of all lanes together and one closing `Tests:` line in Jest's words (what .ci/run reads).
// TEST_LANES_AT_ONCE=1 runs the lanes one after another (same output).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import timingReporter from '../test/support/project-timing-reporter.js';

/**
 * The e2e files in two shards balanced by their measured seconds (test/support/balanced-sequencer.js), the first
 * the smaller (46 % of the e2e seconds): it ends first and its slot takes the next lane, chaos+fuzz+browser (about
 * 510 s), while the larger one's slot then takes unit+integration (about 350 s), so both slots end together.
 * Measured in one CI run: e2e 2,250 s in all, unit+integration 354 s, chaos+fuzz+browser 514 s.
 */
const E2E_SHARD_WEIGHTS = { STT_TEST_SHARD_WEIGHTS: '46,54' };
const LANES = [
  { name: 'e2e 1/2', args: ['--selectProjects', 'e2e', '--shard=1/2'], env: E2E_SHARD_WEIGHTS },
  { name: 'e2e 2/2', args: ['--selectProjects', 'e2e', '--shard=2/2'], env: E2E_SHARD_WEIGHTS },
  { name: 'chaos+fuzz+browser', args: ['--selectProjects', 'chaos', 'fuzz', 'browser'] },
  { name: 'unit+integration', args: ['--selectProjects', 'unit', 'integration'] },
];
const atOnce = Math.max(1, Number(process.env.TEST_LANES_AT_ONCE ?? 2) || 2);
const timingDir = mkdtempSync(join(tmpdir(), 'stt-test-lanes-'));
const jest = join(import.meta.dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');

function runLane(lane, index) {
  const timingFile = join(timingDir, `lane-${index}.json`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [jest, '--runInBand', '--passWithNoTests', ...lane.args, ...process.argv.slice(2)],
      {
        env: { ...process.env, ...lane.env, STT_TEST_TIMING_FILE: timingFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) =>
        process.stdout.write(`[${lane.name}] ${line}\n`),
      );
    }
    child.on('close', (code, signal) => {
      let result = null;
      try {
        result = JSON.parse(readFileSync(timingFile, 'utf8'));
      } catch {
        // Jest died before its reporters ran: the lane counts as failed below.
      }
      resolve({ lane, code, signal, result, seconds: (Date.now() - started) / 1000 });
    });
  });
}

const pending = LANES.map((lane, index) => ({ lane, index }));
const finished = [];
await Promise.all(
  Array.from({ length: Math.min(atOnce, LANES.length) }, async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      finished.push(await runLane(next.lane, next.index));
    }
  }),
);
rmSync(timingDir, { recursive: true, force: true });

const projects = new Map();
const skipped = [];
const totals = { suitesPassed: 0, suitesFailed: 0, passed: 0, failed: 0, skipped: 0 };
for (const { result } of finished) {
  if (!result) continue;
  for (const [name, counts] of Object.entries(result.projects)) {
    const sum = projects.get(name) ?? { ms: 0, files: 0, passed: 0, failed: 0, skipped: 0 };
    for (const key of Object.keys(sum)) sum[key] += counts[key];
    projects.set(name, sum);
  }
  skipped.push(...result.skipped);
  for (const key of Object.keys(totals)) totals[key] += result.totals[key];
}

const lines = ['', 'Lanes (wall clock):'];
for (const { lane, code, signal, seconds } of finished) {
  const outcome = code === 0 ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`;
  lines.push(`  ${lane.name.padEnd(20)} ${seconds.toFixed(1).padStart(7)} s  ${outcome}`);
}
lines.push('', ...timingReporter.projectTimeLines(projects, skipped));
const suites = totals.suitesPassed + totals.suitesFailed;
const tests = totals.passed + totals.failed + totals.skipped;
const part = (count, word) => (count > 0 ? [`${count} ${word}`] : []);
lines.push(
  '',
  `Test Suites: ${[...part(totals.suitesFailed, 'failed'), `${totals.suitesPassed} passed`, `${suites} total`].join(', ')}`,
  `Tests: ${[...part(totals.failed, 'failed'), ...part(totals.skipped, 'skipped'), `${totals.passed} passed`, `${tests} total`].join(', ')}`,
);
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(finished.every(({ code, result }) => code === 0 && result) ? 0 : 1);
