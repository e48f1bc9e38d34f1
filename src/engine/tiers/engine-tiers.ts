import * as fs from 'node:fs';
import * as path from 'node:path';
import { MODEL_TIER_CATALOGUE, MODEL_TIERS } from '../../common/model-tier-catalogue';
import { EngineSettingsPending } from '../../config/engine-settings-pending';
import { ConfigValidationError } from '../../config/configuration';
import { LANGUAGES } from '../../languages/languages';
import type { DiarizerKind } from '../diarization/diarizer-factory';
import type { RecognizerKind } from '../engine-settings';
import type { ModelTier } from '../engine.types';
import { findModel, installedModelPath, MODEL_CATALOGUE } from '../models/model-catalogue';
import {
  defaultWhisperCppBinDir,
  whisperCliPath,
  whisperServerPath,
} from '../whisper-cpp/whisper-cpp.settings';

/**
 * What each model tier runs on this deployment, decided once at boot from the configuration and the files
 * that are really there. Everything that depends on a tier's engine (the engine child's recogniser and
 * diarizer, the upload's language check, `engine:tiers`) reads this resolution, so they cannot disagree.
 *
 * `auto` (the default) picks the best engine whose files are installed; an explicit choice whose model,
 * binary or server is missing is a configuration error naming the variable, never a job that fails later.
 * Each tier's variables and defaults come from the tier catalogue (src/common/model-tier-catalogue.ts).
 */

/** The sherpa-onnx diarizer's two models, as catalogue names (installed by `models:pull`). */
export const SHERPA_DIARIZATION_MODELS = {
  segmentation: 'pyannote-segmentation-3-0',
  embedding: '3dspeaker-eres2net-base',
} as const;

const ENGLISH_ONLY: ReadonlySet<string> = new Set(['en']);

export interface ResolvedTier {
  recognizer: RecognizerKind;
  /** The ggml model file of a whisper-cpp tier; null otherwise. */
  whisperModelPath: string | null;
  /**
   * The German model of a whisper-cpp tier that routes by language (premium tiers): German audio, given as
   * the job's language or detected by the general model, is transcribed with it. Null: one model for all.
   */
  germanWhisperModelPath: string | null;
  diarizer: DiarizerKind;
  /** The model files of a sherpa-onnx tier; null otherwise. */
  sherpaOnnx: { segmentationModelPath: string; embeddingModelPath: string } | null;
  /** Request languages the recogniser serves (`auto` is always served); 'all' = the 99 of GET /v1/languages. */
  languages: ReadonlySet<string> | 'all';
  /** Why `auto` chose what it chose, for the boot log and `engine:tiers`. */
  notes: string[];
}

/** The resolution of every tier; a Nest provider (EngineModule) so the API and the worker share one. */
export class EngineTiers {
  constructor(
    readonly tiers: Readonly<Record<ModelTier, ResolvedTier>>,
    readonly modelsDir: string,
    readonly whisperCppBinDir: string,
  ) {}

  get(tier: ModelTier): ResolvedTier {
    return this.tiers[tier];
  }

  /** Whether `language` (a code of GET /v1/languages, or 'auto') can be served by the tier. */
  serves(tier: ModelTier, language: string): boolean {
    const { languages } = this.tiers[tier];
    return language === 'auto' || languages === 'all' || languages.has(language.toLowerCase());
  }

  /**
   * Whether the tier's recogniser writes numbers as words ("twenty five"): PocketSphinx does, Whisper-family
   * recognisers write digits. Number formatting is on by default for such tiers.
   */
  spellsNumbersOut(tier: ModelTier): boolean {
    return this.tiers[tier].recognizer === 'pocketsphinx';
  }

  /** Plain JSON (Sets become sorted arrays) for `engine:tiers`. */
  toJSON(): Record<string, unknown> {
    return {
      modelsDir: this.modelsDir,
      whisperCppBinDir: this.whisperCppBinDir,
      tiers: Object.fromEntries(
        MODEL_TIERS.map((tier) => {
          const resolved = this.tiers[tier];
          return [
            tier,
            {
              ...resolved,
              languages: resolved.languages === 'all' ? 'all' : [...resolved.languages].sort(),
            },
          ];
        }),
      ),
    };
  }
}

/** The file-system questions the resolver asks; tests use the real file system with temporary folders. */
const files = {
  isFile(file: string): boolean {
    try {
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  },
  isExecutable(file: string): boolean {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  },
};

/** The repository root (this file is src/engine/tiers/ or dist/engine/tiers/). */
const REPOSITORY_ROOT = path.join(__dirname, '..', '..', '..');

/** Resolves every tier; throws one ConfigValidationError listing every misconfigured variable. */
export function resolveEngineTiers(config: EngineSettingsPending): EngineTiers {
  const binDir = whisperCppBinDir(config);
  const problems: string[] = [];
  const tiers = {} as Record<ModelTier, ResolvedTier>;
  for (const tier of MODEL_TIERS) {
    try {
      tiers[tier] = resolveTier(config, tier, binDir);
    } catch (error) {
      if (!(error instanceof TierConfigurationProblem)) throw error;
      problems.push(...error.lines);
    }
  }
  if (problems.length > 0) {
    throw new ConfigValidationError(
      `Invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`,
    );
  }
  return new EngineTiers(tiers, config.MODELS_DIR, binDir);
}

export function whisperCppBinDir(config: EngineSettingsPending): string {
  return config.WHISPER_CPP_BIN_DIR ?? defaultWhisperCppBinDir(REPOSITORY_ROOT);
}

class TierConfigurationProblem extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
  }
}

function resolveTier(config: EngineSettingsPending, tier: ModelTier, binDir: string): ResolvedTier {
  const notes: string[] = [];
  const problems: string[] = [];
  const recognizer = resolveRecognizer(config, tier, binDir, notes, problems);
  const germanWhisperModelPath =
    recognizer.kind === 'whisper-cpp' ? resolveGermanModel(config, tier, notes, problems) : null;
  const diarizer = resolveDiarizer(config, tier, notes, problems);
  if (problems.length > 0) throw new TierConfigurationProblem(problems);
  return {
    recognizer: recognizer.kind,
    whisperModelPath: recognizer.whisperModelPath,
    germanWhisperModelPath,
    diarizer: diarizer.kind,
    sherpaOnnx: diarizer.sherpaOnnx,
    languages: recognizer.languages,
    notes,
  };
}

interface RecognizerResolution {
  kind: RecognizerKind;
  whisperModelPath: string | null;
  languages: ReadonlySet<string> | 'all';
}

const POCKETSPHINX: RecognizerResolution = {
  kind: 'pocketsphinx',
  whisperModelPath: null,
  languages: ENGLISH_ONLY,
};

function resolveRecognizer(
  config: EngineSettingsPending,
  tier: ModelTier,
  binDir: string,
  notes: string[],
  problems: string[],
): RecognizerResolution {
  const variable = MODEL_TIER_CATALOGUE[tier].recognizerVariable;
  const choice = config[variable];
  switch (choice) {
    case 'pocketsphinx':
      return POCKETSPHINX;
    case 'openai-compatible':
      if (!config.OPENAI_STT_BASE_URL) {
        problems.push(`${variable}=openai-compatible: OPENAI_STT_BASE_URL is not set`);
      }
      // Any OpenAI-compatible server is a Whisper engine: it knows the 99 languages.
      return { kind: 'openai-compatible', whisperModelPath: null, languages: 'all' };
    case 'whisper-cpp': {
      const model = whisperModel(config, tier);
      const missingBinaries = missingWhisperBinaries(binDir);
      if (!model.path) problems.push(`${variable}=whisper-cpp: no model: ${model.missing}`);
      if (missingBinaries.length > 0) {
        problems.push(`${variable}=whisper-cpp: ${missingWhisperBinariesMessage(missingBinaries, binDir)}`);
      }
      return whisperResolution(model.path ?? '');
    }
    case 'auto': {
      const model = whisperModel(config, tier);
      if (!model.path) {
        // A model the operator named must exist; only the built-in default may be absent.
        if (model.variable) problems.push(`${model.variable}=${model.value}: ${model.missing}`);
        else notes.push(`recognizer auto → pocketsphinx: whisper model ${model.missing}`);
        return POCKETSPHINX;
      }
      const missingBinaries = missingWhisperBinaries(binDir);
      if (missingBinaries.length > 0) {
        notes.push(
          `recognizer auto → pocketsphinx: model ${model.path} is installed but ` +
            missingWhisperBinariesMessage(missingBinaries, binDir),
        );
        return POCKETSPHINX;
      }
      notes.push(`recognizer auto → whisper-cpp with ${model.path}`);
      return whisperResolution(model.path);
    }
  }
}

/**
 * The German model of a tier that has one: the variable's model (which must exist), else the default when
 * installed; without it German audio stays on the general model, with a note saying how to add it.
 */
function resolveGermanModel(
  config: EngineSettingsPending,
  tier: ModelTier,
  notes: string[],
  problems: string[],
): string | null {
  const german = MODEL_TIER_CATALOGUE[tier].germanWhisperModel;
  if (!german) return null;
  const value = config[german.variable];
  const model = value
    ? lookupModel(config, german.variable, value)
    : lookupModel(config, null, german.defaultModel);
  if (model.path) {
    notes.push(`German audio (given or detected) → ${model.path}`);
    return model.path;
  }
  if (model.variable) problems.push(`${model.variable}=${model.value}: ${model.missing}`);
  else notes.push(`German audio stays on the general model: ${model.missing}`);
  return null;
}

function whisperResolution(modelPath: string): RecognizerResolution {
  return {
    kind: 'whisper-cpp',
    whisperModelPath: modelPath,
    languages: isEnglishOnlyWhisperModel(modelPath) ? ENGLISH_ONLY : 'all',
  };
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
function whisperModel(config: EngineSettingsPending, tier: ModelTier): ModelLookup {
  const perTier = MODEL_TIER_CATALOGUE[tier].whisperModelVariable;
  const perTierValue = config[perTier];
  if (perTierValue) return lookupModel(config, perTier, perTierValue);
  if (config.WHISPER_CPP_MODEL) return lookupModel(config, 'WHISPER_CPP_MODEL', config.WHISPER_CPP_MODEL);
  return lookupModel(config, null, MODEL_TIER_CATALOGUE[tier].defaultWhisperModel);
}

/** A value with a path separator or a file extension is a file path; anything else is a catalogue name. */
export function looksLikeModelPath(value: string): boolean {
  return value.includes('/') || value.includes(path.sep) || /\.(bin|onnx|gguf)$/i.test(value);
}

function lookupModel(config: EngineSettingsPending, variable: string | null, value: string): ModelLookup {
  if (looksLikeModelPath(value)) {
    const file = path.resolve(value);
    return { variable, value, path: files.isFile(file) ? file : null, missing: `no file at ${file}` };
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
    path: installedModelPath(config.MODELS_DIR, value),
    missing: notInstalledMessage(config, value),
  };
}

function notInstalledMessage(config: EngineSettingsPending, name: string): string {
  return `'${name}' is not installed in MODELS_DIR=${config.MODELS_DIR} (node dist/cli.js models:pull ${name})`;
}

/** The recogniser runs whisper-server; whisper-cli (tools, benchmarks) is built alongside it: checked as a pair. */
function missingWhisperBinaries(binDir: string): string[] {
  return [whisperCliPath(binDir), whisperServerPath(binDir)].filter((file) => !files.isExecutable(file));
}

function missingWhisperBinariesMessage(missing: string[], binDir: string): string {
  return (
    `no executable ${missing.map((file) => path.basename(file)).join(', ')} in WHISPER_CPP_BIN_DIR=${binDir} ` +
    `(scripts/build-whisper-cpp.sh builds it)`
  );
}

interface DiarizerResolution {
  kind: DiarizerKind;
  sherpaOnnx: ResolvedTier['sherpaOnnx'];
}

function resolveDiarizer(
  config: EngineSettingsPending,
  tier: ModelTier,
  notes: string[],
  problems: string[],
): DiarizerResolution {
  const variable = MODEL_TIER_CATALOGUE[tier].diarizerVariable;
  const neuralByDefault = MODEL_TIER_CATALOGUE[tier].neuralDiarizationByDefault;
  const choice = config[variable];
  if (choice === 'classical') return { kind: 'classical', sherpaOnnx: null };
  const segmentation = installedModelPath(config.MODELS_DIR, SHERPA_DIARIZATION_MODELS.segmentation);
  const embedding = installedModelPath(config.MODELS_DIR, SHERPA_DIARIZATION_MODELS.embedding);
  const missing: string[] = [];
  if (!segmentation) missing.push(SHERPA_DIARIZATION_MODELS.segmentation);
  if (!embedding) missing.push(SHERPA_DIARIZATION_MODELS.embedding);
  if (segmentation && embedding) {
    if (choice === 'auto' && !neuralByDefault) {
      return { kind: 'classical', sherpaOnnx: null };
    }
    if (choice === 'auto') notes.push('diarizer auto → sherpa-onnx (its models are installed)');
    return {
      kind: 'sherpa-onnx',
      sherpaOnnx: { segmentationModelPath: segmentation, embeddingModelPath: embedding },
    };
  }
  const why = missing.map((name) => notInstalledMessage(config, name)).join('; ');
  if (choice === 'sherpa-onnx') problems.push(`${variable}=sherpa-onnx: ${why}`);
  else if (neuralByDefault) notes.push(`diarizer auto → classical: ${why}`);
  return { kind: 'classical', sherpaOnnx: null };
}

const LANGUAGE_NAMES: ReadonlyMap<string, string> = new Map(LANGUAGES.map(({ code, name }) => [code, name]));

/** "English only (en, auto)" or "all 99 languages of GET /v1/languages (and auto)": for messages. */
export function describeLanguages(languages: ReadonlySet<string> | 'all'): string {
  if (languages === 'all') return `all ${LANGUAGES.length} languages of GET /v1/languages (and auto)`;
  const codes = [...languages].sort();
  const named = codes.map((code) => LANGUAGE_NAMES.get(code) ?? code).join(', ');
  return `${named} only (${[...codes, 'auto'].join(', ')})`;
}
