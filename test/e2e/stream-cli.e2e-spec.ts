import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const CLI = join(__dirname, '..', '..', 'dist', 'stream-cli', 'cli.js');
// In the repository (not ../shared): the stt-stream example of docs/guides/realtime.md streams the same file.
const CLIP = join(__dirname, '..', 'fixtures', 'audio', 'kaldi-gstreamer-server', 'test_with_silence.wav');

function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `npx stt-stream FILE` (issue 35 item 7): a file streamed to /v1/realtime from the command line, partials and
 * finals printed, the session ended cleanly; the transcription is stored like any session's.
 */
describe('stt-stream: a file streamed to the realtime WebSocket from the command line', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp({ MINIMUM_BALANCE_EUR: '0.0001' });
    base = `http://127.0.0.1:${await t.listeningPort()}`;
  });
  afterAll(() => t.close());

  it('prints partials and each final with its times, exits 0, and the session is a completed transcription', async () => {
    const workspace = await t.createWorkspace({ name: 'stt-stream' });
    const result = await run(['--fast', CLIP], { STT_BASE_URL: base, STT_API_KEY: workspace.apiKey });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const finals = result.stdout.split('\n').filter((line) => /^\[\d+\.\d–\d+\.\d s\] \S/.test(line));
    expect(finals.length).toBeGreaterThanOrEqual(2);
    expect(result.stdout).toMatch(/^… \S/m);
    const listed = await eventually(
      'the streamed session completed',
      async () => {
        const response = await t.http().get('/v1/transcriptions').set(bearer(workspace.apiKey));
        const items = response.body.data as Array<{ status: string }>;
        return items.length === 1 && items[0].status === 'completed' ? items : null;
      },
      60_000,
      100,
    );
    expect(listed).toHaveLength(1);
  });

  it('refuses to start without a key (exit 2), and reports a refused key as the server says (exit 1)', async () => {
    const missing = await run([CLIP], { STT_BASE_URL: base, STT_API_KEY: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('STT_API_KEY');
    const refused = await run(['--fast', CLIP], {
      STT_BASE_URL: base,
      STT_API_KEY: 'svc_live_0000000000000000000000000000000000000000',
    });
    expect(refused.code).toBe(1);
  });
});
