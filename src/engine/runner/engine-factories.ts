import { classicalFactory } from '../diarization/classical.factory';
import { sherpaOnnxFactory } from '../diarization/sherpa-onnx.factory';
import { EngineError } from '../engine.types';
import { openAiCompatibleFactory } from '../openai-compatible/openai-compatible.factory';
import { pocketsphinxFactory } from '../pocketsphinx/pocketsphinx.factory';
import type { DiarizerFactory, EngineChoice, RecognizerFactory } from '../registry/engine-descriptor';
import { exportedEngine } from '../registry/exported-engine';
import { whisperCppFactory } from '../whisper-cpp/whisper-cpp.factory';

/**
 * What the engine child knows of the engines: how to build each built-in one from its resolved settings. The
 * descriptors in engine-registry.ts spread these same objects (engine-factories.spec.ts checks the two lists
 * agree); the child loads only these, not the descriptors with their configuration slices (class-validator),
 * since its settings arrive resolved and validated from the parent.
 */
export const BUILT_IN_RECOGNIZER_FACTORIES: readonly RecognizerFactory[] = [
  pocketsphinxFactory,
  whisperCppFactory,
  openAiCompatibleFactory,
] as RecognizerFactory[];

export const BUILT_IN_DIARIZER_FACTORIES: readonly DiarizerFactory[] = [
  classicalFactory,
  sherpaOnnxFactory,
] as DiarizerFactory[];

/** The factory of a choice sent to the child: a built-in one, or the export of an engine registered from outside. */
export function recognizerFactoryOf(choice: EngineChoice): RecognizerFactory {
  return factoryOf(BUILT_IN_RECOGNIZER_FACTORIES, choice, 'recogniser');
}

export function diarizerFactoryOf(choice: EngineChoice): DiarizerFactory {
  return factoryOf(BUILT_IN_DIARIZER_FACTORIES, choice, 'diarizer');
}

function factoryOf<Factory extends { kind: string }>(
  builtIn: readonly Factory[],
  choice: EngineChoice,
  what: string,
): Factory {
  const found = builtIn.find((factory) => factory.kind === choice.kind);
  if (found) return found;
  if (choice.modulePath) return exportedEngine<Factory>(choice);
  throw new EngineError('ENGINE_FAILED', `no ${what} '${choice.kind}' is registered`);
}
