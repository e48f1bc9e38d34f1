import type { RecognizerFactory } from '../registry/engine-descriptor';
import { GermanRoutingRecognizer } from './german-routing.recognizer';
import { WhisperCppRecognizer } from './whisper-cpp.recognizer';
import type { WhisperCppRecognizerSettings } from './whisper-cpp.settings';

/** What a whisper-cpp tier runs: its model, and for premium tiers a German fine-tune German audio goes to. */
export interface WhisperCppTierSettings {
  general: WhisperCppRecognizerSettings;
  german: WhisperCppRecognizerSettings | null;
}

export const whisperCppFactory: RecognizerFactory<WhisperCppTierSettings> = {
  kind: 'whisper-cpp',
  create(settings, { parallelism }) {
    const general = new WhisperCppRecognizer(settings.general, { parallelism });
    // Premium tiers with a German model installed: German audio (given or detected) goes to it.
    if (!settings.german) return general;
    return new GermanRoutingRecognizer(general, new WhisperCppRecognizer(settings.german, { parallelism }));
  },
};
