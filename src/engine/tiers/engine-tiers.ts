import { MODEL_TIERS, type ModelTier } from '../../common/model-tier-catalogue';
import { ConfigValidationError } from '../../config/configuration';
import { ModelsConfig } from '../models/models.config';
import { LANGUAGES } from '../../languages/languages';
import type { Schema } from '../../openapi/contract-types';
import { EngineConfig, TIER_ENGINE_VARIABLES } from '../engine.config';
import type {
  DiarizerDescriptor,
  DiarizerKind,
  EngineChoice,
  EngineConfigReader,
  RecognizerDescriptor,
  RecognizerKind,
  Resolution,
  ResolveContext,
  ServedLanguages,
} from '../registry/engine-descriptor';
import { ENGINE_REGISTRY, type EngineRegistry } from '../engine-registry';

/**
 * What each model tier runs on this deployment, decided once at boot from the configuration and the files
 * that are really there. Everything that depends on a tier's engine (the engine child's recogniser and
 * diarizer, the upload's language check, readiness, `engine:tiers`) reads this resolution, so they cannot
 * disagree.
 *
 * `auto` (the default) tries the registered engines in their `autoRank` order and takes the first available;
 * an explicit choice that cannot run is a configuration error naming the variable, never a job that fails
 * later. What "available" means is each engine's own business (its descriptor's `resolve`).
 */

export interface ResolvedTier {
  recognizer: RecognizerKind;
  diarizer: DiarizerKind;
  /** Request languages the recogniser serves (`auto` is always served); 'all' = the 99 of GET /v1/languages. */
  languages: ServedLanguages;
  /** Why `auto` chose what it chose, for the boot log and `engine:tiers`. */
  notes: string[];
  /** What the engine child builds: each engine's kind and its resolved settings. */
  recognizerChoice: EngineChoice;
  diarizerChoice: EngineChoice;
  /** The engines' own fields for `engine:tiers` (the whisper model path, the sherpa-onnx models, …). */
  report: Record<string, unknown>;
}

/** A tier as `engine:tiers` prints it: the kinds, every registered engine's report fields, languages, notes. */
export interface TierDescription {
  recognizer: RecognizerKind;
  diarizer: DiarizerKind;
  languages: 'all' | string[];
  notes: string[];
  [field: string]: unknown;
}

/** What serves a tier, for people and clients (GET /v1/tiers, `engine:tiers --table`): no server paths. */
export interface TierSummary {
  tier: ModelTier;
  /** The recogniser's kind (`pocketsphinx`, `whisper-cpp`, `openai-compatible`, a plug-in's). */
  engine: RecognizerKind;
  /** Its name for people ("PocketSphinx", "whisper.cpp"). */
  engineName: string;
  /** The model's name (`en-us`, `base`, `large-v3-turbo-q5_0`, the remote model). */
  model: string;
  /** Models that take over for some languages (`{ de: 'large-v3-turbo-german-q5_0' }`); empty for most. */
  modelsByLanguage: Record<string, string>;
  /** The request languages it serves besides `auto`, sorted: all 99 codes of GET /v1/languages for Whisper. */
  languages: Array<Schema<'LanguageCode'>>;
  /** Whether realtime sessions may use the tier. */
  streaming: boolean;
  diarizer: DiarizerKind;
}

/** The resolution of every tier; a Nest provider (EngineModule) so the API and the worker share one. */
export class EngineTiers {
  constructor(
    readonly tiers: Readonly<Record<ModelTier, ResolvedTier>>,
    readonly modelsDir: string,
    /** The engine's validated configuration slices (its own and each registered engine's). */
    readonly config: EngineConfigReader,
    readonly registry: EngineRegistry = ENGINE_REGISTRY,
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
   * Whether the tier's recogniser writes numbers as words ("twenty five"), as PocketSphinx does; Whisper-family
   * recognisers write digits. Number formatting is on by default for such tiers.
   */
  spellsNumbersOut(tier: ModelTier): boolean {
    return this.registry.recognizer(this.tiers[tier].recognizer).spellsNumbersOut;
  }

  /** Whether the tier's recogniser decodes audio as it arrives (realtime sessions take only such tiers). */
  streamsLive(tier: ModelTier): boolean {
    return this.registry.recognizer(this.tiers[tier].recognizer).streamsLive;
  }

  /** Which engine and model serve the tier, without paths (GET /v1/tiers and `engine:tiers --table` show it). */
  summary(tier: ModelTier): TierSummary {
    const resolved = this.tiers[tier];
    const recognizer = this.registry.recognizer(resolved.recognizer);
    const model = recognizer.model(resolved.recognizerChoice.settings);
    return {
      tier,
      engine: resolved.recognizer,
      engineName: recognizer.engineName,
      model: model.name,
      modelsByLanguage: model.byLanguage ?? {},
      // A code outside the 99 (an engine's own) is left out: an upload could not ask for it anyway.
      languages: LANGUAGES.map(({ code }) => code)
        .filter((code) => resolved.languages === 'all' || resolved.languages.has(code))
        .sort(),
      streaming: recognizer.streamsLive,
      diarizer: resolved.diarizer,
    };
  }

  /**
   * Whether the tier's recogniser could start now, from its files alone (no recognition is run; its descriptor
   * says what to check): resolves with what was checked, rejects naming the missing part. The readiness probe,
   * GET /v1/tiers and `engine:tiers --table` ask this.
   */
  checkRecognizer(tier: ModelTier): Promise<Record<string, string>> {
    const { recognizer, recognizerChoice } = this.tiers[tier];
    return this.registry.recognizer(recognizer).checkReadiness(recognizerChoice.settings);
  }

  /** A tier as `engine:tiers` prints it (report fields of engines the tier does not run are null). */
  describe(tier: ModelTier): TierDescription {
    const resolved = this.tiers[tier];
    const defaults = (descriptors: Array<RecognizerDescriptor | DiarizerDescriptor>) =>
      Object.assign({}, ...descriptors.map((descriptor) => descriptor.reportDefaults ?? {})) as Record<
        string,
        null
      >;
    const recognizerFields = defaults(
      this.registry.recognizerKinds().map((kind) => this.registry.recognizer(kind)),
    );
    const diarizerFields = defaults(
      this.registry.diarizerKinds().map((kind) => this.registry.diarizer(kind)),
    );
    const own = (fields: Record<string, null>) =>
      Object.fromEntries(Object.keys(fields).map((field) => [field, resolved.report[field] ?? null]));
    return {
      recognizer: resolved.recognizer,
      ...own(recognizerFields),
      diarizer: resolved.diarizer,
      ...own(diarizerFields),
      languages: resolved.languages === 'all' ? 'all' : [...resolved.languages].sort(),
      notes: resolved.notes,
    };
  }

  /** Plain JSON (Sets become sorted arrays) for `engine:tiers`. */
  toJSON(): Record<string, unknown> {
    const engines = [
      ...this.registry.recognizerKinds().map((kind) => this.registry.recognizer(kind)),
      ...this.registry.diarizerKinds().map((kind) => this.registry.diarizer(kind)),
    ];
    return {
      modelsDir: this.modelsDir,
      ...(Object.assign(
        {},
        ...engines.map((engine) => engine.deploymentReport?.(this.config) ?? {}),
      ) as Record<string, unknown>),
      tiers: Object.fromEntries(MODEL_TIERS.map((tier) => [tier, this.describe(tier)])),
    };
  }
}

/**
 * The values of ENGINE_RECOGNIZER_<TIER> and ENGINE_DIARIZER_<TIER> must name `auto` or a registered engine;
 * checked here, where the registry is known, after the slices themselves were validated at boot.
 */
function checkTierChoices(config: EngineConfigReader, registry: EngineRegistry): void {
  const engine = config.get(EngineConfig);
  const lines: string[] = [];
  for (const tier of MODEL_TIERS) {
    const { recognizer, diarizer } = TIER_ENGINE_VARIABLES[tier];
    for (const [variable, kinds] of [
      [recognizer, registry.recognizerKinds()],
      [diarizer, registry.diarizerKinds()],
    ] as const) {
      const choices = ['auto', ...kinds];
      if (!choices.includes(engine[variable])) {
        lines.push(
          `  ${variable}=${JSON.stringify(engine[variable])}: ${variable} must be one of the following values: ${choices.join(', ')}`,
        );
      }
    }
  }
  if (lines.length > 0) throw new ConfigValidationError(`Invalid configuration:\n${lines.join('\n')}`);
}

/**
 * Resolves every tier from the process's validated configuration (the engine's slices and those of every
 * registered engine); throws one ConfigValidationError naming every bad variable.
 */
export function resolveEngineTiers(
  config: EngineConfigReader,
  registry: EngineRegistry = ENGINE_REGISTRY,
): EngineTiers {
  checkTierChoices(config, registry);
  return resolveTiersFrom(config, config.get(ModelsConfig).MODELS_DIR, registry);
}

/** Resolves every tier from validated engine slices; one ConfigValidationError lists every misconfigured tier. */
export function resolveTiersFrom(
  engineConfig: EngineConfigReader,
  modelsDir: string,
  registry: EngineRegistry = ENGINE_REGISTRY,
): EngineTiers {
  const problems: string[] = [];
  const tiers = {} as Record<ModelTier, ResolvedTier>;
  for (const tier of MODEL_TIERS) {
    const resolution = resolveTier(registry, engineConfig, modelsDir, tier);
    if ('problems' in resolution) problems.push(...resolution.problems);
    else tiers[tier] = resolution;
  }
  if (problems.length > 0) {
    throw new ConfigValidationError(
      `Invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`,
    );
  }
  return new EngineTiers(tiers, modelsDir, engineConfig, registry);
}

function resolveTier(
  registry: EngineRegistry,
  config: EngineConfigReader,
  modelsDir: string,
  tier: ModelTier,
): ResolvedTier | { problems: string[] } {
  const variables = TIER_ENGINE_VARIABLES[tier];
  const choices = config.get(EngineConfig);
  const notes: string[] = [];
  const problems: string[] = [];
  const context = (variable: string, explicit: boolean): ResolveContext => ({
    tier,
    variable,
    explicit,
    config,
    modelsDir,
  });
  const recognizer = choose(
    'recognizer',
    choices[variables.recognizer],
    (kind) => registry.recognizer(kind),
    registry.autoRecognizers(tier),
    (explicit) => context(variables.recognizer, explicit),
    notes,
    problems,
  );
  const diarizer = choose(
    'diarizer',
    choices[variables.diarizer],
    (kind) => registry.diarizer(kind),
    registry.autoDiarizers(tier),
    (explicit) => context(variables.diarizer, explicit),
    notes,
    problems,
  );
  if (!recognizer || !diarizer || problems.length > 0) return { problems };
  return {
    recognizer: recognizer.descriptor.kind,
    diarizer: diarizer.descriptor.kind,
    languages: recognizer.descriptor.languages(recognizer.settings),
    notes,
    recognizerChoice: choiceOf(recognizer),
    diarizerChoice: choiceOf(diarizer),
    report: { ...recognizer.report, ...diarizer.report },
  };
}

interface Chosen<D> {
  descriptor: D;
  settings: unknown;
  report: Record<string, unknown>;
}

/**
 * The named engine, or for `auto` the first candidate that is available; each candidate passed over leaves a
 * note ("recognizer auto → pocketsphinx: whisper model … is not installed"), and so does the one taken when it
 * says why.
 */
function choose<D extends RecognizerDescriptor | DiarizerDescriptor>(
  role: 'recognizer' | 'diarizer',
  choice: string,
  named: (kind: string) => D,
  candidates: D[],
  context: (explicit: boolean) => ResolveContext,
  notes: string[],
  problems: string[],
): Chosen<D> | null {
  const take = (descriptor: D, resolution: Resolution<unknown>): Chosen<D> | null => {
    if (resolution.outcome === 'misconfigured') {
      problems.push(...resolution.problems);
      return null;
    }
    if (resolution.outcome === 'unavailable') {
      problems.push(`${context(true).variable}=${descriptor.kind}: ${resolution.reason}`);
      return null;
    }
    notes.push(...(resolution.notes ?? []));
    return { descriptor, settings: resolution.settings, report: resolution.report ?? {} };
  };
  if (choice !== 'auto') {
    const descriptor = named(choice);
    return take(descriptor, descriptor.resolve(context(true)));
  }
  const passedOver: string[] = [];
  for (const descriptor of candidates) {
    const resolution = descriptor.resolve(context(false));
    if (resolution.outcome === 'unavailable') {
      passedOver.push(resolution.reason);
      continue;
    }
    for (const reason of passedOver) notes.push(`${role} auto → ${descriptor.kind}: ${reason}`);
    if (resolution.outcome === 'resolved' && resolution.autoReason) {
      notes.push(`${role} auto → ${descriptor.kind} ${resolution.autoReason}`);
    }
    return take(descriptor, resolution);
  }
  problems.push(
    `${context(false).variable}=auto: no registered ${role} is available (${passedOver.join('; ')})`,
  );
  return null;
}

function choiceOf(chosen: Chosen<RecognizerDescriptor | DiarizerDescriptor>): EngineChoice {
  const { kind, modulePath } = chosen.descriptor;
  return { kind, settings: chosen.settings, ...(modulePath ? { modulePath } : {}) };
}

const LANGUAGE_NAMES: ReadonlyMap<string, string> = new Map(LANGUAGES.map(({ code, name }) => [code, name]));

/** "English only (en, auto)" or "all 99 languages of GET /v1/languages (and auto)": for messages. */
export function describeLanguages(languages: ServedLanguages): string {
  if (languages === 'all') return `all ${LANGUAGES.length} languages of GET /v1/languages (and auto)`;
  const codes = [...languages].sort();
  const named = codes.map((code) => LANGUAGE_NAMES.get(code) ?? code).join(', ');
  return `${named} only (${[...codes, 'auto'].join(', ')})`;
}
