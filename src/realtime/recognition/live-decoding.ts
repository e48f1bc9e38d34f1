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

/**
 * CPU seconds one live session takes per second of audio with LIVE_POCKETSPHINX_SEARCH: VAD, decoding,
 * partials and utterance ends (bench/realtime-capacity.ts on the 2-core benchmark machine: 0.53, measured
 * under load; docs/benchmarks.md).
 */
export const LIVE_SESSION_CPU_PER_AUDIO_SECOND = 0.5;
/** The share of the cores live sessions may take: the rest absorbs utterance ends, the API and other load. */
const LIVE_CPU_BUDGET = 0.75;

/** Sessions one process serves at once when REALTIME_MAX_SESSIONS is unset: what `cores` sustain in real time. */
export function defaultLiveSessionCapacity(cores: number): number {
  return Math.max(1, Math.floor((cores * LIVE_CPU_BUDGET) / LIVE_SESSION_CPU_PER_AUDIO_SECOND));
}
