import type { EngineSettings, RecognizerKind } from './engine-settings';
import { EngineError, type ModelTier, type Recognizer } from './engine.types';
import { OpenAiCompatibleRecognizer } from './openai-compatible/openai-compatible.recognizer';
import { POCKETSPHINX_IDENTITY } from './pocketsphinx/pocketsphinx-recognizer';
import { RecognizerThreadPool } from './recognition/recognizer-thread-pool';
import { GermanRoutingRecognizer } from './whisper-cpp/german-routing.recognizer';
import { WhisperCppRecognizer } from './whisper-cpp/whisper-cpp.recognizer';

/** The recogniser configured for a model tier. Add new engines here (one case each). */
export function createRecognizer(tier: ModelTier, settings: EngineSettings): Recognizer {
  const { recognizer: kind, whisperCpp, germanWhisperCpp } = settings.tiers[tier];
  switch (kind) {
    case 'pocketsphinx':
      // Native decoding blocks its thread: each chunk runs on one of `parallelism` recogniser threads.
      return new RecognizerThreadPool(
        { kind: 'pocketsphinx', settings: settings.pocketsphinx },
        settings.parallelism,
        POCKETSPHINX_IDENTITY,
      );
    case 'whisper-cpp': {
      if (!whisperCpp) throw notConfigured(kind, tier);
      const general = new WhisperCppRecognizer(whisperCpp, { parallelism: settings.parallelism });
      // Premium tiers with a German model installed: German audio (given or detected) goes to it.
      if (!germanWhisperCpp) return general;
      const german = new WhisperCppRecognizer(germanWhisperCpp, { parallelism: settings.parallelism });
      return new GermanRoutingRecognizer(general, german);
    }
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
