import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { eventually } from '../support/eventually';
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

    it('GET /v1/tiers says every tier runs PocketSphinx here, with its model, languages, availability and price', async () => {
      const response = await t.http().get('/v1/tiers').set(bearer(apiKey));
      expect(response.status).toBe(200);
      expectMatchesSpec(response, 'listTiers');
      const pocketsphinx = {
        engine: 'pocketsphinx',
        engineName: 'PocketSphinx',
        model: 'en-us',
        modelsByLanguage: {},
        languages: ['en'],
        streaming: true,
        diarizer: 'classical',
        available: true,
      };
      expect(response.body.data).toEqual([
        { tier: 'standard', ...pocketsphinx, pricePerMinute: 0.003 },
        { tier: 'premium', ...pocketsphinx, pricePerMinute: 0.0045 },
        { tier: 'premium_jade', ...pocketsphinx, pricePerMinute: 0.006 },
      ]);
    });

    it('GET /v1/tiers needs a credential, and any one of the workspace will do (a key of any one scope)', async () => {
      const anonymous = await t.http().get('/v1/tiers');
      expect(anonymous.status).toBe(401);
      expectMatchesSpec(anonymous, 'listTiers');
      const { userId } = await t.createWorkspace({ name: 'Tiers scopes' });
      for (const scope of ['webhooks', 'transcriptions:write']) {
        const created = await t
          .http()
          .post('/v1/api-keys')
          .set(bearer(t.issueToken(userId)))
          .send({ name: scope, scopes: [scope] });
        expect(created.status).toBe(201);
        const answer = await t
          .http()
          .get('/v1/tiers')
          .set(bearer(created.body.data.key as string));
        expect({ scope, status: answer.status }).toEqual({ scope, status: 200 });
      }
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
    // The service's own copy of the model: a test removes it under the running service.
    let premiumModel: string;
    beforeAll(async () => {
      const folder = mkdtempSync(join(tmpdir(), 'tiers-e2e-premium-'));
      premiumModel = join(folder, basename(syntheticWhisperModel()));
      copyFileSync(syntheticWhisperModel(), premiumModel);
      t = await startTestApp({ ROLE: 'api', ...env(), WHISPER_CPP_MODEL_PREMIUM: premiumModel });
      ({ apiKey } = await t.createWorkspace({ name: 'Tiers whisper', balanceEur: 1, freeTranscriptions: 0 }));
    });
    afterAll(async () => {
      await t.close();
      rmSync(dirname(premiumModel), { recursive: true, force: true });
    });

    it('accepts German on premium; the other tiers stay English only', async () => {
      const accepted = await upload(t, apiKey, CLIP(), { language: 'de', model: 'premium' });
      expect(accepted.status).toBe(202);
      expect(accepted.body.data.model).toBe('premium');
      expect((await upload(t, apiKey, CLIP(), { language: 'de' })).status).toBe(422);
    });

    it('GET /v1/tiers names whisper.cpp and its model on premium (no path), and sees the model file go', async () => {
      const response = await t.http().get('/v1/tiers').set(bearer(apiKey));
      expectMatchesSpec(response, 'listTiers');
      const [standard, premium] = response.body.data as Array<Record<string, unknown>>;
      expect(standard).toMatchObject({ engine: 'pocketsphinx', available: true });
      expect(premium).toMatchObject({
        tier: 'premium',
        engine: 'whisper-cpp',
        engineName: 'whisper.cpp',
        model: basename(premiumModel),
        streaming: false,
        available: true,
      });
      expect(premium.languages).toHaveLength(99);
      expect(JSON.stringify(response.body)).not.toContain(dirname(premiumModel));

      // The model file removed under a running service: the tier is reported unavailable (as by readiness).
      rmSync(premiumModel);
      await eventually(
        'premium reported unavailable',
        async () => {
          const again = await t.http().get('/v1/tiers').set(bearer(apiKey));
          return (again.body.data as Array<{ tier: string; available: boolean }>).find(
            (tier) => tier.tier === 'premium' && !tier.available,
          );
        },
        20_000,
      );
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

    it('engine:tiers --table prints one short row per tier for people: engine, model, status (the quick start shows it)', async () => {
      const { code, stdout } = await runNode('cli.js', ['engine:tiers', '--table'], env());
      expect(code).toBe(0);
      const lines = stdout.trim().split('\n');
      expect(lines[0].split(/\s+/)).toEqual(['tier', 'engine', 'model', 'languages', 'diarizer', 'status']);
      expect(lines.find((line) => line.startsWith('premium '))).toMatch(
        new RegExp(
          `^premium\\s+whisper\\.cpp\\s+${basename(syntheticWhisperModel()).replace(/\./g, '\\.')}\\s+all 99\\s+classical\\s+ready$`,
        ),
      );
      expect(lines.find((line) => line.startsWith('standard '))).toMatch(
        /^standard\s+PocketSphinx\s+en-us\s+en\s+classical\s+ready$/,
      );
      // The tiers that run the very same engine and model are named: they give the same text.
      expect(lines[4]).toBe(
        'premium_jade runs the same PocketSphinx en-us as standard: the same text, at its own price',
      );
      // Before: one JSON line of about 1,600 characters. Now a short row per tier, then why a tier fell back.
      for (const line of lines.slice(0, 4)) expect(line.length).toBeLessThan(100);
    });
  });
});
