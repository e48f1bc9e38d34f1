import type { RecognizerFactory } from '../registry/engine-descriptor';
import { OpenAiCompatibleRecognizer } from './openai-compatible.recognizer';
import type { OpenAiCompatibleRecognizerSettings } from './openai-compatible.settings';

export const openAiCompatibleFactory: RecognizerFactory<OpenAiCompatibleRecognizerSettings> = {
  kind: 'openai-compatible',
  create: (settings) => new OpenAiCompatibleRecognizer(settings),
};
