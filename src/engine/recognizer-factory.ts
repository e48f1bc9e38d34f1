import type { EngineSettings, RecognizerKind } from './engine-settings';
import { EngineError, type ModelTier, type Recognizer } from './engine.types';
import { OpenAiCompatibleRecognizer } from './openai-compatible/openai-compatible.recognizer';
import { POCKETSPHINX_IDENTITY } from './pocketsphinx/pocketsphinx-recognizer';
import { RecognizerThreadPool } from './recognition/recognizer-thread-pool';
import { WhisperCppRecognizer } from './whisper-cpp/whisper-cpp.recognizer';

/** The recogniser configured for a model tier. Add new engines here (one case each). */
export function createRecognizer(tier: ModelTier, settings: EngineSettings): Recognizer {
  const { recognizer: kind, whisperCpp } = settings.tiers[tier];
  switch (kind) {
    case 'pocketsphinx':
      // Native decoding blocks its thread: each chunk runs on one of `parallelism` recogniser threads.
      return new RecognizerThreadPool(
        { kind: 'pocketsphinx', settings: settings.pocketsphinx },
        settings.parallelism,
        POCKETSPHINX_IDENTITY,
      );
    case 'whisper-cpp':
      if (!whisperCpp) throw notConfigured(kind, tier);
      return new WhisperCppRecognizer(whisperCpp, { parallelism: settings.parallelism });
    case 'openai-compatible':
      if (!settings.openaiCompatible) throw notConfigured(kind, tier);
      return new OpenAiCompatibleRecognizer(settings.openaiCompatible);
  }
}

function notConfigured(kind: RecognizerKind, tier: ModelTier): EngineError {
  return new EngineError(
    'ENGINE_FAILED',
    `tier '${tier}' uses the '${kind}' recogniser, but it has no settings`,
  );
}
