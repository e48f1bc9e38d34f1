import type { PocketSphinxSettings } from '../engine-settings';
import type { RecognizerFactory } from '../registry/engine-descriptor';
import { POCKETSPHINX_IDENTITY } from './pocketsphinx-recognizer';
import { RecognizerThreadPool } from './recognizer-thread-pool';

export const pocketsphinxFactory: RecognizerFactory<PocketSphinxSettings> = {
  kind: 'pocketsphinx',
  // Native decoding blocks its thread: each chunk runs on one of `parallelism` recogniser threads.
  create: (settings, { parallelism }) =>
    new RecognizerThreadPool({ kind: 'pocketsphinx', settings }, parallelism, POCKETSPHINX_IDENTITY),
};
