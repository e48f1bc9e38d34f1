import {
  POCKETSPHINX_SEARCH_PRESETS,
  type PocketSphinxSearchSettings,
} from '../../engine/pocketsphinx/search-presets';

/**
 * The decoder's search for live sessions: the file jobs' beams without the second (flat-lexicon) pass. That
 * pass re-searches the whole utterance once it ends, so it is paid while the client waits for the final item,
 * and, with several sessions per core, it is what makes recognition fall behind (bench/realtime-capacity.ts).
 */
export const LIVE_POCKETSPHINX_SEARCH: PocketSphinxSearchSettings = {
  ...POCKETSPHINX_SEARCH_PRESETS.default,
  fwdflat: false,
};
