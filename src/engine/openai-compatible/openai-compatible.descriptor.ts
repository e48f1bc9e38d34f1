import type { RecognizerDescriptor } from '../registry/engine-descriptor';
import { OpenAiSttConfig } from './openai-compatible.config';
import { openAiCompatibleFactory } from './openai-compatible.factory';
import type { OpenAiCompatibleRecognizerSettings } from './openai-compatible.settings';

/** A remote OpenAI-compatible server: only when a tier names it (`auto` never sends audio away). */
export const openAiCompatibleRecognizer: RecognizerDescriptor<OpenAiCompatibleRecognizerSettings> = {
  ...openAiCompatibleFactory,
  configSlice: OpenAiSttConfig,
  streamsLive: false,
  spellsNumbersOut: false,
  engineName: 'OpenAI-compatible server',

  // The model name the remote server is asked for (OPENAI_STT_MODEL); its address is not shown.
  model: ({ model }) => ({ name: model }),

  resolve({ config, variable }) {
    const { OPENAI_STT_BASE_URL, OPENAI_STT_API_KEY, OPENAI_STT_MODEL, OPENAI_STT_TIMEOUT_MS } =
      config.get(OpenAiSttConfig);
    if (!OPENAI_STT_BASE_URL) {
      return {
        outcome: 'misconfigured',
        problems: [`${variable}=openai-compatible: OPENAI_STT_BASE_URL is not set`],
      };
    }
    return {
      outcome: 'resolved',
      settings: {
        baseUrl: OPENAI_STT_BASE_URL,
        apiKey: OPENAI_STT_API_KEY ?? null,
        model: OPENAI_STT_MODEL,
        timeoutMs: OPENAI_STT_TIMEOUT_MS,
      },
    };
  },

  // Any OpenAI-compatible server is a Whisper engine: it knows the 99 languages.
  languages: () => 'all',

  // Not probed: a request per probe would cost its operator; the check reports that instead.
  checkReadiness: async () => ({ recognizer: 'openai-compatible', note: 'remote engine, not probed' }),
};
