import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Configuration, ConfigValidationError, loadConfiguration } from '../../config/configuration';
import { MODEL_TIERS } from '../../common/model-tier-catalogue';
import { ENGINE_REGISTRY } from '../engine-registry';
import { ModelsConfig } from '../models/models.config';
import { LANGUAGE_CODES } from '../../languages/languages';
import { findModel, installedBytes, MODEL_CATALOGUE } from '../models/model-catalogue';
import { syntheticWhisperModel } from '../../../test/support/whisper-cpp/synthetic-whisper-model';
import { requireWhisperCppBinDir } from '../../../test/support/whisper-cpp/whisper-cpp.testing';
import { isEnglishOnlyWhisperModel } from '../whisper-cpp/whisper-cpp.descriptor';
import { describeLanguages, resolveEngineTiers } from './engine-tiers';

/**
 * The resolver against the real file system: the real whisper.cpp binaries, the synthetic ggml model the
 * tests generate, and models "installed" in a temporary MODELS_DIR as files of the catalogue's pinned size
 * (sparse, so a 550 MB model costs nothing; installedModelPath checks name and size, not content).
 */
const SYNTHETIC_MODEL = syntheticWhisperModel();

describe('resolveEngineTiers', () => {
  let modelsDir: string;
  let emptyDir: string;
  const binDir = requireWhisperCppBinDir(process.env.WHISPER_CPP_BIN_DIR);

  beforeEach(() => {
    modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiers-models-'));
    emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiers-empty-'));
  });
  afterEach(() => {
    fs.rmSync(modelsDir, { recursive: true, force: true });
    fs.rmSync(emptyDir, { recursive: true, force: true });
  });

  const config = (environment: Record<string, string> = {}): Configuration =>
    loadConfiguration([ModelsConfig, ...ENGINE_REGISTRY.configSlices()], {
      MODELS_DIR: modelsDir,
      WHISPER_CPP_BIN_DIR: binDir,
      ...environment,
    });

  const install = (name: string): string => {
    const entry = findModel(MODEL_CATALOGUE, name);
    if (!entry) throw new Error(`${name} is not in the catalogue`);
    const file = path.join(modelsDir, entry.fileName);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    fs.truncateSync(file, installedBytes(entry));
    return file;
  };

  const errorOf = (attempt: () => unknown): string => {
    try {
      attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigValidationError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigValidationError');
  };

  it('auto with nothing installed: PocketSphinx and classical everywhere, English only', () => {
    const tiers = resolveEngineTiers(config());
    for (const tier of ['standard', 'premium', 'premium_jade'] as const) {
      expect(tiers.describe(tier)).toMatchObject({
        recognizer: 'pocketsphinx',
        whisperModelPath: null,
        diarizer: 'classical',
        sherpaOnnx: null,
      });
      expect(tiers.serves(tier, 'en')).toBe(true);
      expect(tiers.serves(tier, 'auto')).toBe(true);
      expect(tiers.serves(tier, 'de')).toBe(false);
    }
    expect(tiers.describe('premium').notes.join('\n')).toContain("'large-v3-turbo-q5_0' is not installed");
  });

  it('auto picks each tier’s installed default model and the neural diarizer for premium tiers only', () => {
    const base = install('base');
    const turbo = install('large-v3-turbo-q5_0');
    const segmentation = install('pyannote-segmentation-3-0');
    const embedding = install('3dspeaker-eres2net-base');
    const tiers = resolveEngineTiers(config());
    expect(tiers.describe('standard')).toMatchObject({
      recognizer: 'whisper-cpp',
      whisperModelPath: base,
      diarizer: 'classical',
      languages: 'all',
    });
    for (const tier of ['premium', 'premium_jade'] as const) {
      expect(tiers.describe(tier)).toMatchObject({
        recognizer: 'whisper-cpp',
        whisperModelPath: turbo,
        diarizer: 'sherpa-onnx',
        sherpaOnnx: { segmentationModelPath: segmentation, embeddingModelPath: embedding },
      });
    }
    expect(tiers.serves('standard', 'de')).toBe(true);
  });

  it('premium tiers route German to the German fine-tune when it is installed; standard never does', () => {
    install('base');
    const turbo = install('large-v3-turbo-q5_0');
    const notInstalled = resolveEngineTiers(config());
    expect(notInstalled.describe('premium').germanWhisperModelPath).toBeNull();
    expect(notInstalled.describe('premium').notes.join('\n')).toContain(
      "German audio stays on the general model: 'large-v3-turbo-german-q5_0' is not installed",
    );
    const german = install('large-v3-turbo-german-q5_0');
    const tiers = resolveEngineTiers(config());
    for (const tier of ['premium', 'premium_jade'] as const) {
      expect(tiers.describe(tier)).toMatchObject({ whisperModelPath: turbo, germanWhisperModelPath: german });
    }
    expect(tiers.describe('standard').germanWhisperModelPath).toBeNull();
  });

  it('a German model named by WHISPER_CPP_MODEL_PREMIUM_GERMAN must exist', () => {
    install('large-v3-turbo-q5_0');
    const message = errorOf(() =>
      resolveEngineTiers(config({ WHISPER_CPP_MODEL_PREMIUM_GERMAN: '/nowhere/ggml-german.bin' })),
    );
    expect(message).toContain('WHISPER_CPP_MODEL_PREMIUM_GERMAN=/nowhere/ggml-german.bin: no file at');
    const tiers = resolveEngineTiers(config({ WHISPER_CPP_MODEL_PREMIUM_GERMAN: SYNTHETIC_MODEL }));
    expect(tiers.describe('premium').germanWhisperModelPath).toBe(SYNTHETIC_MODEL);
    expect(tiers.describe('premium_jade').germanWhisperModelPath).toBeNull();
  });

  it('a file of the wrong size is not an installed model', () => {
    const file = install('base');
    fs.truncateSync(file, 1000);
    expect(resolveEngineTiers(config()).describe('standard').recognizer).toBe('pocketsphinx');
  });

  it('auto falls back to PocketSphinx (with a note) when the model is there but whisper.cpp is not built', () => {
    install('base');
    const tiers = resolveEngineTiers(config({ WHISPER_CPP_BIN_DIR: emptyDir }));
    expect(tiers.describe('standard').recognizer).toBe('pocketsphinx');
    expect(tiers.describe('standard').notes.join('\n')).toContain(`WHISPER_CPP_BIN_DIR=${emptyDir}`);
  });

  it('WHISPER_CPP_MODEL_<TIER> wins over WHISPER_CPP_MODEL, which wins over the defaults', () => {
    install('base');
    const small = install('small');
    const tiers = resolveEngineTiers(
      config({ WHISPER_CPP_MODEL: small, WHISPER_CPP_MODEL_PREMIUM: SYNTHETIC_MODEL }),
    );
    expect(tiers.describe('standard').whisperModelPath).toBe(small);
    expect(tiers.describe('premium').whisperModelPath).toBe(SYNTHETIC_MODEL);
    expect(tiers.describe('premium_jade').whisperModelPath).toBe(small);
  });

  it('an English-only Whisper model serves English only', () => {
    install('base.en');
    const tiers = resolveEngineTiers(config({ WHISPER_CPP_MODEL_STANDARD: 'base.en' }));
    expect(tiers.describe('standard').recognizer).toBe('whisper-cpp');
    expect(tiers.serves('standard', 'de')).toBe(false);
    expect(isEnglishOnlyWhisperModel('/m/ggml-tiny.en-q5_1.bin')).toBe(true);
    expect(isEnglishOnlyWhisperModel('/m/ggml-large-v3-turbo.bin')).toBe(false);
  });

  it('an explicit whisper-cpp tier without its model fails, naming the variable', () => {
    const message = errorOf(() => resolveEngineTiers(config({ ENGINE_RECOGNIZER_STANDARD: 'whisper-cpp' })));
    expect(message).toContain('ENGINE_RECOGNIZER_STANDARD=whisper-cpp: no model');
    expect(message).toContain(`'base' is not installed in MODELS_DIR=${modelsDir}`);
  });

  it('an explicit whisper-cpp tier without the binaries fails, naming WHISPER_CPP_BIN_DIR', () => {
    const message = errorOf(() =>
      resolveEngineTiers(
        config({
          ENGINE_RECOGNIZER_PREMIUM: 'whisper-cpp',
          WHISPER_CPP_MODEL_PREMIUM: SYNTHETIC_MODEL,
          WHISPER_CPP_BIN_DIR: emptyDir,
        }),
      ),
    );
    expect(message).toContain(
      `ENGINE_RECOGNIZER_PREMIUM=whisper-cpp: no executable whisper-cli, whisper-server in WHISPER_CPP_BIN_DIR=${emptyDir}`,
    );
  });

  it('a model the operator named must exist even with auto; every problem is listed in one error', () => {
    const message = errorOf(() =>
      resolveEngineTiers(
        config({
          WHISPER_CPP_MODEL_STANDARD: '/nowhere/ggml-base.bin',
          WHISPER_CPP_MODEL_PREMIUM: 'no-such-model',
          ENGINE_RECOGNIZER_PREMIUM_JADE: 'openai-compatible',
          ENGINE_DIARIZER_PREMIUM_JADE: 'sherpa-onnx',
        }),
      ),
    );
    expect(message).toContain(
      'WHISPER_CPP_MODEL_STANDARD=/nowhere/ggml-base.bin: no file at /nowhere/ggml-base.bin',
    );
    expect(message).toContain('WHISPER_CPP_MODEL_PREMIUM=no-such-model: neither a file path nor a model');
    expect(message).toContain(
      'ENGINE_RECOGNIZER_PREMIUM_JADE=openai-compatible: OPENAI_STT_BASE_URL is not set',
    );
    expect(message).toContain(
      "ENGINE_DIARIZER_PREMIUM_JADE=sherpa-onnx: 'pyannote-segmentation-3-0' is not installed",
    );
  });

  it('explicit choices are kept: pocketsphinx and classical even with models installed', () => {
    install('base');
    install('pyannote-segmentation-3-0');
    install('3dspeaker-eres2net-base');
    const tiers = resolveEngineTiers(
      config({
        ENGINE_RECOGNIZER_STANDARD: 'pocketsphinx',
        ENGINE_DIARIZER_PREMIUM: 'classical',
        ENGINE_DIARIZER_STANDARD: 'sherpa-onnx',
      }),
    );
    expect(tiers.describe('standard')).toMatchObject({ recognizer: 'pocketsphinx', diarizer: 'sherpa-onnx' });
    expect(tiers.describe('premium').diarizer).toBe('classical');
    expect(tiers.describe('premium_jade').diarizer).toBe('sherpa-onnx');
  });

  it('an OpenAI-compatible tier serves every language of the contract', () => {
    const tiers = resolveEngineTiers(
      config({ ENGINE_RECOGNIZER_PREMIUM: 'openai-compatible', OPENAI_STT_BASE_URL: 'http://127.0.0.1:9' }),
    );
    expect(tiers.describe('premium').recognizer).toBe('openai-compatible');
    for (const code of LANGUAGE_CODES) expect(tiers.serves('premium', code)).toBe(true);
    // The model asked of the remote server is shown; its address (and key) are not.
    expect(tiers.summary('premium')).toMatchObject({ engine: 'openai-compatible', model: 'whisper-1' });
    expect(JSON.stringify(tiers.summary('premium'))).not.toContain('127.0.0.1');
  });

  it('summarises each tier for people and clients: engine and model by name, never a server path', async () => {
    const nothing = resolveEngineTiers(config());
    expect(nothing.summary('premium')).toEqual({
      tier: 'premium',
      engine: 'pocketsphinx',
      engineName: 'PocketSphinx',
      model: 'en-us',
      modelsByLanguage: {},
      languages: ['en'],
      streaming: true,
      diarizer: 'classical',
    });
    await expect(nothing.checkRecognizer('premium')).resolves.toEqual({ recognizer: 'pocketsphinx' });

    install('base');
    install('large-v3-turbo-q5_0');
    install('large-v3-turbo-german-q5_0');
    const installed = resolveEngineTiers(config({ WHISPER_CPP_MODEL_PREMIUM_JADE: SYNTHETIC_MODEL }));
    expect(installed.summary('standard')).toMatchObject({
      engine: 'whisper-cpp',
      engineName: 'whisper.cpp',
      model: 'base',
      modelsByLanguage: {},
      streaming: false,
    });
    expect(installed.summary('standard').languages).toEqual([...LANGUAGE_CODES].sort());
    expect(installed.summary('premium')).toMatchObject({
      model: 'large-v3-turbo-q5_0',
      modelsByLanguage: { de: 'large-v3-turbo-german-q5_0' },
    });
    // An operator's own file outside the catalogue is named by its file name, not its folder.
    expect(installed.summary('premium_jade').model).toBe(path.basename(SYNTHETIC_MODEL));
    expect(JSON.stringify(MODEL_TIERS.map((tier) => installed.summary(tier)))).not.toContain(modelsDir);
    expect(JSON.stringify(MODEL_TIERS.map((tier) => installed.summary(tier)))).not.toContain(
      path.dirname(SYNTHETIC_MODEL),
    );
  });

  it('serialises for engine:tiers with languages as arrays', () => {
    const json = JSON.parse(JSON.stringify(resolveEngineTiers(config()))) as {
      tiers: Record<string, { languages: unknown }>;
    };
    expect(json.tiers.standard.languages).toEqual(['en']);
  });
});

describe('describeLanguages', () => {
  it('names the languages and codes a tier serves', () => {
    expect(describeLanguages(new Set(['en']))).toBe('English only (en, auto)');
    expect(describeLanguages('all')).toBe('all 99 languages of GET /v1/languages (and auto)');
  });
});
