import { classicalDiarizer } from './diarization/classical.descriptor';
import { sherpaOnnxDiarizer } from './diarization/sherpa-onnx.descriptor';
import { EngineConfig } from './engine.config';
import { EngineError } from './engine.types';
import { openAiCompatibleRecognizer } from './openai-compatible/openai-compatible.descriptor';
import { pocketsphinxRecognizer } from './pocketsphinx/pocketsphinx.descriptor';
import { whisperCppRecognizer } from './whisper-cpp/whisper-cpp.descriptor';
import type {
  DiarizerDescriptor,
  EngineChoice,
  EngineConfigSlice,
  RecognizerDescriptor,
} from './registry/engine-descriptor';
import { exportedEngine } from './registry/exported-engine';

/**
 * The engines this service can run. Adding one is a folder with its descriptor (see engine-descriptor.ts)
 * and one line in these lists; an engine kept outside src/engine (a plug-in, a test) is registered at start-up
 * with `ENGINE_REGISTRY.registerRecognizer(...)` / `registerDiarizer(...)` instead.
 */
const BUILT_IN_RECOGNIZERS: readonly RecognizerDescriptor[] = [
  pocketsphinxRecognizer,
  whisperCppRecognizer,
  openAiCompatibleRecognizer,
] as RecognizerDescriptor[];

const BUILT_IN_DIARIZERS: readonly DiarizerDescriptor[] = [
  classicalDiarizer,
  sherpaOnnxDiarizer,
] as DiarizerDescriptor[];

type Descriptor = RecognizerDescriptor | DiarizerDescriptor;

export class EngineRegistry {
  private readonly recognizers = new Map<string, RecognizerDescriptor>();
  private readonly diarizers = new Map<string, DiarizerDescriptor>();

  constructor(recognizers: readonly RecognizerDescriptor[], diarizers: readonly DiarizerDescriptor[]) {
    for (const descriptor of recognizers) this.registerRecognizer(descriptor);
    for (const descriptor of diarizers) this.registerDiarizer(descriptor);
  }

  /** Adds a recogniser; its kind becomes a value of ENGINE_RECOGNIZER_<TIER>. Register before the app boots. */
  registerRecognizer<Settings>(descriptor: RecognizerDescriptor<Settings>): void {
    add(this.recognizers, descriptor as RecognizerDescriptor, 'recogniser');
  }

  /** Adds a diarizer; its kind becomes a value of ENGINE_DIARIZER_<TIER>. Register before the app boots. */
  registerDiarizer<Settings>(descriptor: DiarizerDescriptor<Settings>): void {
    add(this.diarizers, descriptor as DiarizerDescriptor, 'diarizer');
  }

  /** Registered recogniser kinds, in registration order (the order of the validation message). */
  recognizerKinds(): string[] {
    return [...this.recognizers.keys()];
  }

  diarizerKinds(): string[] {
    return [...this.diarizers.keys()];
  }

  recognizer(kind: string): RecognizerDescriptor {
    return lookup(this.recognizers, kind, 'recogniser');
  }

  diarizer(kind: string): DiarizerDescriptor {
    return lookup(this.diarizers, kind, 'diarizer');
  }

  /** The candidates `auto` tries for a tier, first choice first. */
  autoRecognizers(tier: string): RecognizerDescriptor[] {
    return autoCandidates([...this.recognizers.values()], tier);
  }

  autoDiarizers(tier: string): DiarizerDescriptor[] {
    return autoCandidates([...this.diarizers.values()], tier);
  }

  /** The configuration slices of the engine and of every registered engine that reads variables. */
  configSlices(): EngineConfigSlice[] {
    const own = [...this.recognizers.values(), ...this.diarizers.values()].flatMap((descriptor) =>
      descriptor.configSlice ? [descriptor.configSlice] : [],
    );
    return [EngineConfig, ...new Set(own)];
  }

  /**
   * The descriptor of a choice sent to the engine child. An engine registered from outside src/engine is
   * registered here first by loading the module that exports it (the child starts with the built-ins only).
   */
  recognizerOf(choice: EngineChoice): RecognizerDescriptor {
    if (!this.recognizers.has(choice.kind) && choice.modulePath) {
      this.registerRecognizer(exportedEngine<RecognizerDescriptor>(choice));
    }
    return this.recognizer(choice.kind);
  }

  diarizerOf(choice: EngineChoice): DiarizerDescriptor {
    if (!this.diarizers.has(choice.kind) && choice.modulePath) {
      this.registerDiarizer(exportedEngine<DiarizerDescriptor>(choice));
    }
    return this.diarizer(choice.kind);
  }
}

/** The registry of this process: the built-in engines plus those registered at start-up. */
export const ENGINE_REGISTRY = new EngineRegistry(BUILT_IN_RECOGNIZERS, BUILT_IN_DIARIZERS);

function add<D extends Descriptor>(map: Map<string, D>, descriptor: D, what: string): void {
  if (descriptor.kind === 'auto') throw new Error(`'auto' is not a ${what} name`);
  if (map.has(descriptor.kind)) throw new Error(`the ${what} '${descriptor.kind}' is registered twice`);
  map.set(descriptor.kind, descriptor);
}

function lookup<D extends Descriptor>(map: Map<string, D>, kind: string, what: string): D {
  const descriptor = map.get(kind);
  if (!descriptor) throw new EngineError('ENGINE_FAILED', `no ${what} '${kind}' is registered`);
  return descriptor;
}

function autoCandidates<D extends Descriptor>(descriptors: D[], tier: string): D[] {
  return descriptors
    .filter((descriptor) => descriptor.autoRank !== undefined)
    .filter((descriptor) => !descriptor.autoTiers || descriptor.autoTiers.some((name) => name === tier))
    .sort((a, b) => (a.autoRank ?? 0) - (b.autoRank ?? 0));
}
