// A Jest reporter (plain CommonJS: Jest loads reporters without a transform) that prints, after Jest's own
// summary, the time and counts of each project (unit, integration, e2e, chaos, fuzz, browser), so a slow tier
// is visible in one run, and every skipped test by name, so a skip and its reason (a skipped test names it)
// are never lost in the totals. Time is the sum of the files' run times: each Jest process runs in band, so
// this is the project's share of that process's wall clock. Its lines never start with "Tests:" (.ci/run
// parses Jest's). Under scripts/run-tests.mjs (several Jest processes), it writes the same figures as JSON to
// STT_TEST_TIMING_FILE instead, and that script prints them for all processes together.

const { writeFileSync } = require('node:fs');

class ProjectTimingReporter {
  constructor() {
    /** @type {Map<string, {ms: number, files: number, passed: number, failed: number, skipped: number}>} */
    this.projects = new Map();
    /** @type {string[]} */
    this.skipped = [];
  }

  onTestResult(test, result) {
    const name = projectName(test.context.config.displayName);
    const project = this.projects.get(name) ?? { ms: 0, files: 0, passed: 0, failed: 0, skipped: 0 };
    const { start, end } = result.perfStats;
    project.ms += start && end ? end - start : 0;
    project.files += 1;
    project.passed += result.numPassingTests;
    project.failed += result.numFailingTests + (result.testExecError ? 1 : 0);
    project.skipped += result.numPendingTests + result.numTodoTests;
    this.projects.set(name, project);
    const file = result.testFilePath.slice(test.context.config.rootDir.length + 1);
    for (const assertion of result.testResults) {
      if (assertion.status === 'pending' || assertion.status === 'skipped' || assertion.status === 'todo') {
        this.skipped.push(
          `  ${name}  ${file} › ${[...assertion.ancestorTitles, assertion.title].join(' › ')}`,
        );
      }
    }
  }

  onRunComplete(_contexts, results) {
    const timingFile = process.env.STT_TEST_TIMING_FILE;
    if (timingFile) {
      const totals = {
        suitesPassed: results.numPassedTestSuites,
        suitesFailed: results.numFailedTestSuites,
        passed: results.numPassedTests,
        failed: results.numFailedTests,
        skipped: results.numPendingTests + results.numTodoTests,
      };
      writeFileSync(
        timingFile,
        JSON.stringify({ projects: Object.fromEntries(this.projects), skipped: this.skipped, totals }),
      );
      return;
    }
    if (this.projects.size === 0) return;
    const lines = ['', ...projectTimeLines(this.projects, this.skipped)];
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}

/**
 * "Time per project:" with a line per project (time, files, counts) in tier order, then the skipped tests by
 * name. Also used by scripts/run-tests.mjs for the figures of all its lanes together.
 * @param {Map<string, {ms: number, files: number, passed: number, failed: number, skipped: number}>} projects
 * @param {string[]} skipped
 */
function projectTimeLines(projects, skipped) {
  const lines = ['Time per project:'];
  const tiers = [...projects.keys()].sort((a, b) => tierRank(a) - tierRank(b));
  for (const name of tiers) {
    const project = projects.get(name);
    const counts = [`${project.passed} passed`];
    if (project.failed > 0) counts.push(`${project.failed} failed`);
    if (project.skipped > 0) counts.push(`${project.skipped} skipped`);
    lines.push(
      `  ${name.padEnd(12)} ${(project.ms / 1000).toFixed(1).padStart(7)} s  ${String(project.files).padStart(3)} files  ${counts.join(', ')}`,
    );
  }
  if (skipped.length > 0) lines.push('', `Skipped (${skipped.length}):`, ...skipped);
  return lines;
}

/** The projects in jest.config.js's order, fastest tier first. */
const TIER_ORDER = ['unit', 'integration', 'e2e', 'chaos', 'fuzz', 'browser'];
function tierRank(name) {
  const rank = TIER_ORDER.indexOf(name);
  return rank === -1 ? TIER_ORDER.length : rank;
}

function projectName(displayName) {
  if (!displayName) return 'default';
  return typeof displayName === 'string' ? displayName : displayName.name;
}

module.exports = ProjectTimingReporter;
module.exports.projectTimeLines = projectTimeLines;
