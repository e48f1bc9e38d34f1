import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { ModelTier } from '../../common/model-tier-catalogue';
import { installedFiles, notInstalledMessage } from '../models/installed-files';
import { findModel, installedModelPath, MODEL_CATALOGUE } from '../models/model-catalogue';
import type {
  EngineConfigReader,
  RecognizerDescriptor,
  Resolution,
  ResolveContext,
} from '../registry/engine-descriptor';
import { ENGLISH_ONLY, readable } from '../registry/engine-checks';
import { WhisperCppConfig } from './whisper-cpp.config';
import { whisperCppFactory, type WhisperCppTierSettings } from './whisper-cpp.factory';
import {
  defaultWhisperCppBinDir,
  whisperCliPath,
  whisperServerPath,
  type WhisperCppRecognizerSettings,
} from './whisper-cpp.settings';

export type { WhisperCppTierSettings } from './whisper-cpp.factory';

type ModelVariable = Extract<keyof WhisperCppConfig, `WHISPER_CPP_MODEL_${string}`>;

/** Each tier's Whisper model variable and defaults (catalogue names). */
const TIER_MODELS: Readonly<
  Record<
    ModelTier,
    {
      variable: ModelVariable;
      defaultModel: string;
      /** Tiers that route German audio (asked for, or detected) to a German fine-tune; null: one model for all. */
      german: { variable: ModelVariable; defaultModel: string } | null;
    }
  >
> = {
  // base: about 3x faster than real time on 2 cores, a big step up from PocketSphinx for the cheap tier.
  standard: { variable: 'WHISPER_CPP_MODEL_STANDARD', defaultModel: 'base', german: null },
  // large-v3-turbo quantised: near large-v3 accuracy at a fraction of its size (≈ 550 MB) and time.
  // "Tuned for DACH": German audio runs primeline's German fine-tune of the same turbo model (same size).
  premium: {
    variable: 'WHISPER_CPP_MODEL_PREMIUM',
    defaultModel: 'large-v3-turbo-q5_0',
    german: { variable: 'WHISPER_CPP_MODEL_PREMIUM_GERMAN', defaultModel: 'large-v3-turbo-german-q5_0' },
  },
  premium_jade: {
    variable: 'WHISPER_CPP_MODEL_PREMIUM_JADE',
    defaultModel: 'large-v3-turbo-q5_0',
    german: { variable: 'WHISPER_CPP_MODEL_PREMIUM_JADE_GERMAN', defaultModel: 'large-v3-turbo-german-q5_0' },
  },
};

/** The repository root (this file is src/engine/whisper-cpp/ or dist/engine/whisper-cpp/). */
const REPOSITORY_ROOT = path.join(__dirname, '..', '..', '..');

export function whisperCppBinDir(config: EngineConfigReader): string {
  return config.get(WhisperCppConfig).WHISPER_CPP_BIN_DIR ?? defaultWhisperCppBinDir(REPOSITORY_ROOT);
}

/**
 * whisper.cpp run locally through whisper-server: `auto` picks it first when the tier's model is installed
 * and the binaries are built.
 */
export const whisperCppRecognizer: RecognizerDescriptor<WhisperCppTierSettings> = {
  ...whisperCppFactory,
  configSlice: WhisperCppConfig,
  autoRank: 1,
  streamsLive: false,
  spellsNumbersOut: false,
  reportDefaults: { whisperModelPath: null, germanWhisperModelPath: null },
  engineName: 'whisper.cpp',

  model: ({ general, german }) => ({
    name: whisperModelName(general.modelPath),
    ...(german ? { byLanguage: { de: whisperModelName(german.modelPath) } } : {}),
  }),

  resolve(context: ResolveContext): Resolution<WhisperCppTierSettings> {
    const { explicit, variable } = context;
    const binDir = whisperCppBinDir(context.config);
    const model = whisperModel(context);
    const missingBinaries = missingWhisperBinaries(binDir);
    if (explicit) {
      const problems: string[] = [];
      if (!model.path) problems.push(`${variable}=whisper-cpp: no model: ${model.missing}`);
      if (missingBinaries.length > 0) {
        problems.push(`${variable}=whisper-cpp: ${missingWhisperBinariesMessage(missingBinaries, binDir)}`);
      }
      const german = resolveGermanModel(context);
      problems.push(...german.problems);
      if (problems.length > 0 || !model.path) return { outcome: 'misconfigured', problems };
      return resolved(context, model.path, german);
    }
    if (!model.path) {
      // A model the operator named must exist; only the built-in default may be absent.
      if (model.variable) {
        return { outcome: 'misconfigured', problems: [`${model.variable}=${model.value}: ${model.missing}`] };
      }
      return { outcome: 'unavailable', reason: `whisper model ${model.missing}` };
    }
    if (missingBinaries.length > 0) {
      return {
        outcome: 'unavailable',
        reason: `model ${model.path} is installed but ${missingWhisperBinariesMessage(missingBinaries, binDir)}`,
      };
    }
    const german = resolveGermanModel(context);
    if (german.problems.length > 0) return { outcome: 'misconfigured', problems: german.problems };
    return { ...resolved(context, model.path, german), autoReason: `with ${model.path}` };
  },

  languages: (settings) => (isEnglishOnlyWhisperModel(settings.general.modelPath) ? ENGLISH_ONLY : 'all'),

  deploymentReport: (config) => ({ whisperCppBinDir: whisperCppBinDir(config) }),

  describe(settings) {
    const german = settings.german ? `; German: ${settings.german.modelPath}` : '';
    return ` (${settings.general.modelPath}${german})`;
  },

  async checkReadiness({ general }) {
    await readable(general.modelPath, 'whisper model');
    if ((await stat(general.modelPath)).size === 0)
      throw new Error(`whisper model ${general.modelPath} is empty`);
    await access(general.binaryPath, constants.X_OK).catch(() => {
      throw new Error(`whisper server ${general.binaryPath} is missing or not executable`);
    });
    return { recognizer: 'whisper-cpp' };
  },
};

interface GermanModel {
  path: string | null;
  notes: string[];
  problems: string[];
}

function resolved(
  context: ResolveContext,
  modelPath: string,
  german: GermanModel,
): Resolution<WhisperCppTierSettings> & { outcome: 'resolved' } {
  const binDir = whisperCppBinDir(context.config);
  const { WHISPER_CPP_THREADS: threads } = context.config.get(WhisperCppConfig);
  const run = (file: string): WhisperCppRecognizerSettings => ({
    binaryPath: whisperServerPath(binDir),
    modelPath: file,
    threads,
  });
  return {
    outcome: 'resolved',
    settings: { general: run(modelPath), german: german.path ? run(german.path) : null },
    notes: german.notes,
    report: { whisperModelPath: modelPath, germanWhisperModelPath: german.path },
  };
}

/**
 * The German model of a tier that has one: the variable's model (which must exist), else the default when
 * installed; without it German audio stays on the general model, with a note saying how to add it.
 */
function resolveGermanModel(context: ResolveContext): GermanModel {
  const german = TIER_MODELS[context.tier].german;
  if (!german) return { path: null, notes: [], problems: [] };
  const value = context.config.get(WhisperCppConfig)[german.variable];
  const model = value
    ? lookupModel(context.modelsDir, german.variable, value)
    : lookupModel(context.modelsDir, null, german.defaultModel);
  if (model.path)
    return { path: model.path, notes: [`German audio (given or detected) → ${model.path}`], problems: [] };
  if (model.variable)
    return { path: null, notes: [], problems: [`${model.variable}=${model.value}: ${model.missing}`] };
  return { path: null, notes: [`German audio stays on the general model: ${model.missing}`], problems: [] };
}

/**
 * The catalogue name of an installed model file (`ggml-base.bin` → `base`); a file of the operator's own outside
 * the catalogue is named by its file name.
 */
export function whisperModelName(modelPath: string): string {
  const file = path.basename(modelPath);
  const entry = MODEL_CATALOGUE.find(
    (candidate) => candidate.kind === 'whisper-ggml' && path.basename(candidate.fileName) === file,
  );
  return entry ? entry.name : file;
}

/** whisper.cpp's `.en` models (ggml-base.en.bin, ggml-tiny.en-q5_1.bin, …) know English only. */
export function isEnglishOnlyWhisperModel(modelPath: string): boolean {
  return /\.en([.-]|$)/.test(path.basename(modelPath));
}

interface ModelLookup {
  /** The variable that named the model; null for the tier's built-in default. */
  variable: string | null;
  value: string;
  path: string | null;
  /** Why it is missing, for messages. */
  missing: string;
}

/** WHISPER_CPP_MODEL_<TIER> first, then the all-tiers WHISPER_CPP_MODEL, then the tier's default. */
function whisperModel(context: ResolveContext): ModelLookup {
  const config = context.config.get(WhisperCppConfig);
  const { variable, defaultModel } = TIER_MODELS[context.tier];
  const perTierValue = config[variable];
  if (perTierValue) return lookupModel(context.modelsDir, variable, perTierValue);
  if (config.WHISPER_CPP_MODEL) {
    return lookupModel(context.modelsDir, 'WHISPER_CPP_MODEL', config.WHISPER_CPP_MODEL);
  }
  return lookupModel(context.modelsDir, null, defaultModel);
}

/** A value with a path separator or a file extension is a file path; anything else is a catalogue name. */
export function looksLikeModelPath(value: string): boolean {
  return value.includes('/') || value.includes(path.sep) || /\.(bin|onnx|gguf)$/i.test(value);
}

function lookupModel(modelsDir: string, variable: string | null, value: string): ModelLookup {
  if (looksLikeModelPath(value)) {
    const file = path.resolve(value);
    return {
      variable,
      value,
      path: installedFiles.isFile(file) ? file : null,
      missing: `no file at ${file}`,
    };
  }
  if (!findModel(MODEL_CATALOGUE, value)) {
    const names = MODEL_CATALOGUE.filter((entry) => entry.kind === 'whisper-ggml').map((entry) => entry.name);
    return {
      variable,
      value,
      path: null,
      missing: `neither a file path nor a model of the catalogue (${names.join(', ')})`,
    };
  }
  return {
    variable,
    value,
    path: installedModelPath(modelsDir, value),
    missing: notInstalledMessage(modelsDir, value),
  };
}

/** The recogniser runs whisper-server; whisper-cli (tools, benchmarks) is built alongside it: checked as a pair. */
function missingWhisperBinaries(binDir: string): string[] {
  return [whisperCliPath(binDir), whisperServerPath(binDir)].filter(
    (file) => !installedFiles.isExecutable(file),
  );
}

function missingWhisperBinariesMessage(missing: string[], binDir: string): string {
  return (
    `no executable ${missing.map((file) => path.basename(file)).join(', ')} in WHISPER_CPP_BIN_DIR=${binDir} ` +
    `(scripts/build-whisper-cpp.sh builds it)`
  );
}
