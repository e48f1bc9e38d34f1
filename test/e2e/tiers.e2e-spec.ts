import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticWhisperModel } from '../support/whisper-cpp/synthetic-whisper-model';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';
import { upload } from '../support/transcriptions';

const ROOT = join(__dirname, '..', '..');
const WHISPER_CPP_BIN_DIR = process.env.WHISPER_CPP_BIN_DIR ?? join(ROOT, '.tools', 'whisper.cpp', 'bin');
const CLIP = (): string => testAudio('pocketsphinx/goforward.wav');

/** Runs `node dist/<script>` with the test environment plus overrides; resolves with its exit code and output. */
function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [join(ROOT, 'dist', script), ...args], {
      env: { ...process.env, ...baseTestEnvironment(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * What each tier runs is decided at boot from configuration and installed files (src/engine/tiers): a tier
 * configured for an engine that is not there stops the process, and an upload in a language the tier's
 * recogniser cannot serve is refused at once instead of becoming a job that fails later.
 */
describe('Engine tiers', () => {
  describe('a tier configured for an engine that is missing', () => {
    let emptyModels: string;
    beforeAll(() => {
      emptyModels = mkdtempSync(join(tmpdir(), 'tiers-e2e-models-'));
    });
    afterAll(() => rmSync(emptyModels, { recursive: true, force: true }));

    it.each(['all', 'api', 'worker'])(
      'stops a %s process at boot with a message naming the variable',
      async (role) => {
        const { code, stdout, stderr } = await runNode('main.js', [], {
          ROLE: role,
          ENGINE_RECOGNIZER_STANDARD: 'whisper-cpp',
          MODELS_DIR: emptyModels,
          LOG_LEVEL: 'log',
        });
        expect(code).toBe(1);
        expect(stderr).toContain('Invalid configuration:');
        expect(stderr).toContain(
          `ENGINE_RECOGNIZER_STANDARD=whisper-cpp: no model: 'base' is not installed in MODELS_DIR=${emptyModels}`,
        );
        expect(stdout).not.toMatch(/Listening on port|Worker started/);
      },
    );

    it('engine:tiers fails with the same message', async () => {
      const { code, stderr } = await runNode('cli.js', ['engine:tiers'], {
        ENGINE_RECOGNIZER_PREMIUM: 'whisper-cpp',
        WHISPER_CPP_MODEL_PREMIUM: '/nowhere/ggml-large-v3.bin',
        MODELS_DIR: emptyModels,
      });
      expect(code).toBe(1);
      expect(stderr).toContain(
        'ENGINE_RECOGNIZER_PREMIUM=whisper-cpp: no model: no file at /nowhere/ggml-large-v3.bin',
      );
    });
  });

  describe('the default deployment (nothing installed: PocketSphinx, English only)', () => {
    let t: TestApp;
    let apiKey: string;
    beforeAll(async () => {
      // An API-only process: the refusal happens there; no job needs to run.
      t = await startTestApp({ ROLE: 'api' });
      ({ apiKey } = await t.createWorkspace({ name: 'Tiers', balanceEur: 0, freeTranscriptions: 2 }));
    });
    afterAll(() => t.close());

    it('refuses German on the standard tier with 422 naming what it serves, before a job or a free transcription is used', async () => {
      const refused = await upload(t, apiKey, CLIP(), { language: 'de' });
      expect(refused.status).toBe(422);
      expect(refused.body.type).toMatch(/\/validation$/);
      expect(refused.body.errors).toEqual({
        fieldErrors: {
          language: ["the standard tier of this deployment serves English only (en, auto); got 'de'"],
        },
        formErrors: [],
      });
      const premium = await upload(t, apiKey, CLIP(), { language: 'fr', model: 'premium_jade' });
      expect(premium.status).toBe(422);
      expect(premium.body.errors.fieldErrors.language[0]).toMatch(/^the premium_jade tier .* English only/);

      const list = await t.http().get('/v1/transcriptions').set(bearer(apiKey));
      expect(list.body.data).toEqual([]);
      const balance = await t.http().get('/v1/account/balance').set(bearer(apiKey));
      expect(balance.body.data.freeTranscriptionsRemaining).toBe(2);
    });

    it('accepts English and auto', async () => {
      expect((await upload(t, apiKey, CLIP(), { language: 'en' })).status).toBe(202);
      expect((await upload(t, apiKey, CLIP(), { language: 'auto' })).status).toBe(202);
    });

    it('still lists the 99 languages of the contract', async () => {
      const response = await t.http().get('/v1/languages');
      expectMatchesSpec(response, 'listLanguages');
      expect(response.body.data).toHaveLength(99);
    });
  });

  describe('a deployment with whisper.cpp on the premium tier', () => {
    let t: TestApp;
    let apiKey: string;
    const env = (): Record<string, string> => ({
      ENGINE_RECOGNIZER_PREMIUM: 'whisper-cpp',
      WHISPER_CPP_MODEL_PREMIUM: syntheticWhisperModel(),
      WHISPER_CPP_BIN_DIR,
    });
    beforeAll(async () => {
      t = await startTestApp({ ROLE: 'api', ...env() });
      ({ apiKey } = await t.createWorkspace({ name: 'Tiers whisper', balanceEur: 1, freeTranscriptions: 0 }));
    });
    afterAll(() => t.close());

    it('accepts German on premium; the other tiers stay English only', async () => {
      const accepted = await upload(t, apiKey, CLIP(), { language: 'de', model: 'premium' });
      expect(accepted.status).toBe(202);
      expect(accepted.body.data.model).toBe('premium');
      expect((await upload(t, apiKey, CLIP(), { language: 'de' })).status).toBe(422);
    });

    it('engine:tiers prints the resolution as one JSON line', async () => {
      const { code, stdout } = await runNode('cli.js', ['engine:tiers'], env());
      expect(code).toBe(0);
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const resolution = JSON.parse(lines[0]) as { tiers: Record<string, Record<string, unknown>> };
      expect(resolution.tiers.premium).toMatchObject({
        recognizer: 'whisper-cpp',
        whisperModelPath: syntheticWhisperModel(),
        diarizer: 'classical',
        languages: 'all',
      });
      expect(resolution.tiers.standard).toMatchObject({ recognizer: 'pocketsphinx', languages: ['en'] });
    });

    it('engine:tiers --table prints one short line per tier for people (the quick start shows it)', async () => {
      const { code, stdout } = await runNode('cli.js', ['engine:tiers', '--table'], env());
      expect(code).toBe(0);
      const lines = stdout.trim().split('\n');
      expect(lines[0].split(/\s+/)).toEqual(['tier', 'recogniser', 'model', 'diarizer', 'languages']);
      expect(lines.find((line) => line.startsWith('premium '))).toMatch(
        /^premium\s+whisper-cpp\s+\S+\s+classical\s+all \(99\)$/,
      );
      expect(lines.find((line) => line.startsWith('standard '))).toMatch(
        /^standard\s+pocketsphinx\s+en-us \(PocketSphinx\)\s+\S+\s+en$/,
      );
      // Before: one JSON line of about 1,600 characters. Now a short line per tier, then why a tier fell back.
      for (const line of lines.slice(0, 4)) expect(line.length).toBeLessThan(100);
    });
  });
});
