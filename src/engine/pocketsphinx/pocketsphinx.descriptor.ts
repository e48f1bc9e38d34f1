import { basename } from 'node:path';
import { defaultPocketSphinxSettings, type PocketSphinxSettings } from '../engine-settings';
import type { RecognizerDescriptor } from '../registry/engine-descriptor';
import { ENGLISH_ONLY, readable } from '../registry/engine-checks';
import { pocketsphinxFactory } from './pocketsphinx.factory';

/** The built-in English recogniser (Debian's packages): `auto`'s last resort, always available. */
export const pocketsphinxRecognizer: RecognizerDescriptor<PocketSphinxSettings> = {
  ...pocketsphinxFactory,
  autoRank: 100,
  streamsLive: true,
  spellsNumbersOut: true,
  engineName: 'PocketSphinx',

  // Debian's pocketsphinx-en-us acoustic model (its folder's name, `en-us`).
  model: ({ acousticModelPath }) => ({ name: basename(acousticModelPath) }),

  resolve: () => ({ outcome: 'resolved', settings: defaultPocketSphinxSettings() }),

  languages: () => ENGLISH_ONLY,

  async checkReadiness({ acousticModelPath, languageModelPath, dictionaryPath }) {
    await readable(acousticModelPath, 'pocketsphinx acoustic model');
    await readable(languageModelPath, 'pocketsphinx language model');
    await readable(dictionaryPath, 'pocketsphinx dictionary');
    return { recognizer: 'pocketsphinx' };
  },
};
