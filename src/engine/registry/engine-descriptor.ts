import type { ModelTier } from '../../common/model-tier-catalogue';
import type { Diarizer, Recognizer } from '../engine.types';

/**
 * What an engine (recogniser or diarizer) is to the rest of the service: one descriptor object, registered in
 * EngineRegistry (engine-registry.ts). Tier resolution, construction in the engine child, the readiness probe,
 * the languages a tier serves and the configuration each engine reads all go through these fields; nothing
 * outside the registry asks which engine a tier runs.
 */

/** The name of a registered recogniser, as written in ENGINE_RECOGNIZER_<TIER> (`auto` picks one). */
export type RecognizerKind = string;
/** The name of a registered diarizer, as written in ENGINE_DIARIZER_<TIER> (`auto` picks one). */
export type DiarizerKind = string;

/** Request languages an engine serves (`auto` is always served); 'all' = the 99 of GET /v1/languages. */
export type ServedLanguages = ReadonlySet<string> | 'all';

/**
 * A configuration slice: a class whose property names are the environment variables it reads, with
 * class-validator rules and defaults as initialisers (validated once at boot, the error naming the variable).
 */
export type EngineConfigSlice<T extends object = object> = new () => T;

/** Reads the validated slices of this process. */
export interface EngineConfigReader {
  get<T extends object>(slice: EngineConfigSlice<T>): T;
}

/** Shared facts every resolution may need. */
export interface ResolveContext {
  tier: ModelTier;
  /** The tier's variable, ENGINE_RECOGNIZER_<TIER> or ENGINE_DIARIZER_<TIER>, for messages. */
  variable: string;
  /** True when the variable names this engine; false when `auto` is trying it. */
  explicit: boolean;
  config: EngineConfigReader;
  /** Where `models:pull` installs models (MODELS_DIR). */
  modelsDir: string;
}

/**
 * The outcome of trying an engine for a tier:
 * - `resolved`: it runs the tier with these (JSON) settings;
 * - `unavailable`: `auto` moves on to the next candidate, noting `reason`;
 * - `misconfigured`: a configuration error; every line names the variable and stops the boot.
 */
export type Resolution<Settings> =
  | {
      outcome: 'resolved';
      settings: Settings;
      /** Why `auto` chose it, appended to "recognizer auto → <kind>" (e.g. "with /models/ggml-base.bin"). */
      autoReason?: string;
      notes?: string[];
      /** Fields shown for this tier by `engine:tiers` (see `reportDefaults`). */
      report?: Record<string, unknown>;
    }
  | { outcome: 'unavailable'; reason: string }
  | { outcome: 'misconfigured'; problems: string[] };

interface EngineDescriptor<Settings> {
  kind: string;
  /** The environment variables this engine reads (its own, none shared); omitted when it reads none. */
  configSlice?: EngineConfigSlice;
  /**
   * The engine's place when a tier's variable is `auto`: lower is tried first; absent, `auto` never picks it
   * (it must be named). `autoTiers` narrows the tiers where `auto` tries it.
   */
  autoRank?: number;
  autoTiers?: readonly ModelTier[];
  /** Whether and how it runs the tier; `context.explicit` says whether it was named or `auto` is asking. */
  resolve(context: ResolveContext): Resolution<Settings>;
  /** `engine:tiers` prints these fields for every tier (null where the tier runs another engine). */
  reportDefaults?: Record<string, null>;
  /** Deployment-wide fields `engine:tiers` prints beside MODELS_DIR (e.g. the whisper.cpp binaries' folder). */
  deploymentReport?(config: EngineConfigReader): Record<string, unknown>;
  /** A short description for the boot log, e.g. " (/models/ggml-base.bin)". */
  describe?(settings: Settings): string;
  /**
   * For an engine defined outside src/engine (a plug-in, a test): the module that exports this descriptor,
   * which the engine child process loads by path. Built-in engines leave it out.
   */
  modulePath?: string;
}

/**
 * How the engine child builds a recogniser from its resolved settings: all the child loads of an engine. Kept
 * in a module of its own (`<engine>.factory.ts`, no configuration slice, so no class-validator) that the
 * descriptor spreads; `src/engine/runner/engine-factories.ts` lists the built-in ones for the child.
 */
export interface RecognizerFactory<Settings = unknown> {
  kind: string;
  /** Builds the recogniser in the engine child; `parallelism` chunks are recognised at once. */
  create(settings: Settings, context: { parallelism: number }): Recognizer;
}

/** How the engine child builds a diarizer (see RecognizerFactory); a setup that cannot work throws here. */
export interface DiarizerFactory<Settings = unknown> {
  kind: string;
  create(settings: Settings): Diarizer;
}

export interface RecognizerDescriptor<Settings = unknown>
  extends EngineDescriptor<Settings>, RecognizerFactory<Settings> {
  /** Languages the resolved recogniser serves (upload refuses others with 422). */
  languages(settings: Settings): ServedLanguages;
  /** Whether it writes numbers as words ("twenty five"): number formatting is then on by default. */
  spellsNumbersOut: boolean;
  /** Whether it decodes audio as it arrives, so realtime sessions may use the tier. */
  streamsLive: boolean;
  /** Whether it could start now, without recognising anything; resolves with what was checked. */
  checkReadiness(settings: Settings): Promise<Record<string, string>>;
  /** The engine's name for people (GET /v1/tiers, `engine:tiers --table`, the dashboard): "whisper.cpp". */
  engineName: string;
  /**
   * The model it runs with these settings, as people know it (a catalogue name such as `base`, not a server
   * path); `byLanguage` names the models that take over for some languages (premium's German fine-tune).
   */
  model(settings: Settings): { name: string; byLanguage?: Record<string, string> };
}

export type DiarizerDescriptor<Settings = unknown> = EngineDescriptor<Settings> & DiarizerFactory<Settings>;

/** A tier's engine as resolved at boot and sent to the engine child: which descriptor, with what settings. */
export interface EngineChoice<Kind extends string = string> {
  kind: Kind;
  settings: unknown;
  /** Set for engines registered from outside src/engine (see EngineDescriptor.modulePath). */
  modulePath?: string;
}
