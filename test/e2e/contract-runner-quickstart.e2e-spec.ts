/**
 * The local contract-runner command of docs/guides/qa.md (`npx stt-contract --base-url … --mode read-only --no-jobs
 * --max-examples 2`) against a service set up as the quick start runs it: the rate limits of .env.example and no
 * private webhook targets. It must pass without waiting out a single 429: the runner paces itself by the
 * service's x-ratelimit-* headers, and its webhook endpoint needs no DNS it cannot have (its own loopback receiver
 * when the service accepts it, else a placeholder, skipped with the reason when the host cannot be resolved).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'contract-runner', 'cli.js');

/** The quick start's settings for what this test is about, read from .env.example (the file it copies). */
function quickStartSettings(): Record<string, string> {
  const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const values = Object.fromEntries(
    example
      .split('\n')
      .map((line) => /^([A-Z0-9_]+)=(.*)$/.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1], match[2]]),
  );
  const names = [
    'RATE_LIMIT_AUTHENTICATED_PER_MINUTE',
    'RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE',
    'RATE_LIMIT_WORKSPACE_PER_MINUTE',
    'WEBHOOK_ALLOW_PRIVATE_TARGETS',
  ];
  return Object.fromEntries(names.map((name) => [name, String(values[name])]));
}

function runContract(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe("The guide's (docs/guides/qa.md) stt-contract command against a service set up like the quick start", () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    const settings = quickStartSettings();
    expect(settings).toMatchObject({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    // A Redis prefix of its own: the rate-limit windows start empty, as on a fresh quick start.
    t = await startTestApp({ ...settings, REDIS_PREFIX: `stt-test-contract-quickstart-${randomUUID()}` });
    baseUrl = `http://localhost:${await t.listeningPort()}`;
  });
  afterAll(() => t?.close());

  it('passes read-only without jobs, paced by the rate-limit headers (no 429 waited out), with no webhook DNS', async () => {
    const { apiKey } = await t.createWorkspace({ name: 'Quick start', balanceEur: 10 });
    const { code, output } = await runContract([
      ...['--base-url', baseUrl, '--api-key', apiKey],
      ...['--mode', 'read-only', '--no-jobs', '--max-examples', '2', '--verbose'],
    ]);
    const outcome = {
      code,
      result: output.match(/RESULT: \w+/)?.[0],
      refusals: output.match(/429 rate-limit.*/g),
    };
    expect({ outcome, output }).toMatchObject({
      outcome: { code: 0, result: 'RESULT: PASS', refusals: null },
    });
    // The run needed more calls than one window allows, and waited for the next window instead of a 429.
    expect(output).toMatch(/note: rate limit: no call left in this window/);
    // The service refuses private targets: the run's own receiver is given up for the placeholder.
    expect(output).toMatch(/the service refuses the run's loopback receiver/);
  }, 600_000);
});
