import { defaultPocketSphinxSettings, type PocketSphinxSettings } from '../engine-settings';
import { RecognizerThreadPool } from './recognizer-thread-pool';
import type { RecognizerDescriptor } from '../registry/engine-descriptor';
import { ENGLISH_ONLY, readable } from '../registry/engine-checks';
import { POCKETSPHINX_IDENTITY } from './pocketsphinx-recognizer';

/** The built-in English recogniser (Debian's packages): `auto`'s last resort, always available. */
export const pocketsphinxRecognizer: RecognizerDescriptor<PocketSphinxSettings> = {
  kind: 'pocketsphinx',
  autoRank: 100,
  streamsLive: true,
  spellsNumbersOut: true,

  resolve: () => ({ outcome: 'resolved', settings: defaultPocketSphinxSettings() }),

  languages: () => ENGLISH_ONLY,

  // Native decoding blocks its thread: each chunk runs on one of `parallelism` recogniser threads.
  create: (settings, { parallelism }) =>
    new RecognizerThreadPool({ kind: 'pocketsphinx', settings }, parallelism, POCKETSPHINX_IDENTITY),

  async checkReadiness({ acousticModelPath, languageModelPath, dictionaryPath }) {
    await readable(acousticModelPath, 'pocketsphinx acoustic model');
    await readable(languageModelPath, 'pocketsphinx language model');
    await readable(dictionaryPath, 'pocketsphinx dictionary');
    return { recognizer: 'pocketsphinx' };
  },
};
