import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAppConfiguration } from '../../src/app-configuration';
import { ConfigValidationError } from '../../src/config/configuration';
import { ENGINE_REGISTRY } from '../../src/engine/engine-registry';
import { resolveEngineTiers } from '../../src/engine/tiers/engine-tiers';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { tallyRecognizer } from '../support/tally-engine/tally.recognizer';
import { startTestApp, type TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';
import { upload, waitForTerminal } from '../support/transcriptions';

// The one step an engine kept outside src/engine takes: register its descriptor before the app boots. The
// engine child process (another process) loads the same module by path to build it.
ENGINE_REGISTRY.registerRecognizer({
  ...tallyRecognizer,
  modulePath: require.resolve('../support/tally-engine/tally.recognizer'),
});

type Word = { word: string; start: number; end: number };
type ReadinessBody = { checks: Record<string, { status: string; message?: string; recognizer?: string }> };

/**
 * A recogniser added through the registry's public API alone (test/support/tally-engine/), with no file of
 * src/ changed: its variables are validated at boot, tier resolution names it or lets `auto` pick it, a real
 * job runs on it in the engine child, readiness probes its model, and upload refuses languages it does not serve.
 */
describe('Engine registry: a recogniser registered from outside src/engine', () => {
  const modelFile = join(tmpdir(), `stt-tally-model-${randomUUID()}.bin`);
  const environment = (): Record<string, string> => ({
    ENGINE_RECOGNIZER_PREMIUM: 'tally',
    TALLY_MODEL_FILE: modelFile,
    TALLY_LANGUAGES: 'en,de',
  });
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    writeFileSync(modelFile, 'tally');
    t = await startTestApp(environment());
    ({ apiKey } = await t.createWorkspace({ name: 'Registry', balanceEur: 1, freeTranscriptions: 0 }));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(modelFile, { force: true });
  });

  const errorOf = (overrides: Record<string, string>): string => {
    try {
      resolveEngineTiers(loadAppConfiguration({ ...baseTestEnvironment(), ...overrides }));
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigValidationError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigValidationError');
  };

  it('resolves tiers with it: named on premium, picked by auto on premium_jade, not on standard', () => {
    const tiers = resolveEngineTiers(t.config);
    expect(tiers.describe('premium')).toMatchObject({
      recognizer: 'tally',
      tallyModelFile: modelFile,
      whisperModelPath: null,
      languages: ['de', 'en'],
    });
    const jade = tiers.describe('premium_jade');
    expect(jade).toMatchObject({ recognizer: 'tally', tallyModelFile: modelFile });
    expect(jade.notes).toContain(`recognizer auto → tally with ${modelFile}`);
    expect(tiers.describe('standard')).toMatchObject({ recognizer: 'pocketsphinx', tallyModelFile: null });
    expect(tiers.spellsNumbersOut('premium')).toBe(false);
  });

  it('validates its variables and the choice at boot, naming the variable', () => {
    expect(errorOf({ ...environment(), TALLY_LANGUAGES: 'English' })).toContain(
      'TALLY_LANGUAGES="English": TALLY_LANGUAGES must be comma-separated ISO 639-1 codes',
    );
    expect(errorOf({ ...environment(), TALLY_MODEL_FILE: '/nowhere/tally.bin' })).toContain(
      'ENGINE_RECOGNIZER_PREMIUM=tally: no file at /nowhere/tally.bin',
    );
    expect(errorOf({ ENGINE_RECOGNIZER_STANDARD: 'tallyy' })).toContain(
      'ENGINE_RECOGNIZER_STANDARD="tallyy": ENGINE_RECOGNIZER_STANDARD must be one of the following values: ' +
        'auto, pocketsphinx, whisper-cpp, openai-compatible, tally',
    );
  });

  it('runs a real job through HTTP on it (decode, speech detection, its recognition, diarization)', async () => {
    const created = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'), {
      model: 'premium',
      language: 'en',
    });
    expect(created.status).toBe(202);
    const { status, body } = await waitForTerminal(t, apiKey, created.body.data.id as string);
    expect(body.data.errorMessage).toBeNull();
    expect(status).toBe('completed');
    const words = (body.data.resultJson as { words: Word[] }).words;
    expect(words.length).toBeGreaterThan(0);
    expect(words.every((word) => word.word === 'tally' && word.end > word.start)).toBe(true);
  });

  it('refuses at upload a language it does not serve, naming what the tier serves', async () => {
    const refused = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'), {
      model: 'premium',
      language: 'fr',
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('German, English only (de, en, auto)');
    const accepted = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'), {
      model: 'premium',
      language: 'de',
    });
    expect(accepted.status).toBe(202);
  });

  it('is probed by readiness through its own check: up with the model, down naming it without', async () => {
    const ready = await t.http().get('/v1/health/ready');
    expect(ready.status).toBe(200);
    expectMatchesSpec(ready, 'getReadiness');
    expect((ready.body as ReadinessBody).checks.recognizer_premium).toMatchObject({
      status: 'up',
      recognizer: 'tally',
    });
    rmSync(modelFile);
    try {
      const down = await eventually(
        'readiness naming the tally model',
        async () => {
          const response = await t.http().get('/v1/health/ready');
          return response.status === 503 && response;
        },
        30_000,
      );
      expectMatchesSpec(down, 'getReadiness');
      const checks = (down.body as ReadinessBody).checks;
      expect(checks.recognizer_premium.message).toContain(`tally model ${modelFile} is missing`);
      expect(checks.recognizer_standard.status).toBe('up');
    } finally {
      writeFileSync(modelFile, 'tally');
    }
  });
});
