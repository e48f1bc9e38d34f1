import type { PocketSphinxSettings } from '../../engine/engine-settings';
import { PocketSphinxRecognizer } from '../../engine/pocketsphinx/pocketsphinx-recognizer';
import { LIVE_CEPSTRAL_MEAN, LIVE_POCKETSPHINX_SEARCH } from './live-decoding';
import type { LiveRecognizer } from './live-transcriber';
import { SpeechMeanAdaptation } from './speech-mean-adaptation';

/**
 * A session's recogniser: PocketSphinx with the live search, its mean seeded with a typical speech mean and
 * re-measured from the session's first speech. The models are loaded now (an empty utterance), so the first
 * words are not late.
 */
export function createLiveRecognizer(
  pocketsphinx: PocketSphinxSettings,
  vocabulary: readonly string[],
): LiveRecognizer {
  const recognizer = new PocketSphinxRecognizer(
    { ...pocketsphinx, search: LIVE_POCKETSPHINX_SEARCH },
    LIVE_CEPSTRAL_MEAN,
  );
  recognizer.startUtterance(vocabulary);
  recognizer.abandonUtterance();
  return new SpeechMeanAdaptation(recognizer);
}
