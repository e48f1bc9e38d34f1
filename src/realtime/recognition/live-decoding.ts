import {
  POCKETSPHINX_SEARCH_PRESETS,
  type PocketSphinxSearchSettings,
} from '../../engine/pocketsphinx/search-presets';

/**
 * The decoder's search for live sessions: the file jobs' beams without the second (flat-lexicon) pass, and at
 * most 20 distinct words leaving the search per frame. Both bound what ending an utterance costs, which the
 * client waits for: the flat pass re-searches the whole utterance, and the unlimited word exits made the
 * lattice of a 25 s utterance take 5.5–6.2 s of CPU for its word posteriors (0.37 s with the cap), enough to put
 * four sessions on two cores 10 s behind (bench/realtime-capacity.ts, docs/benchmarks.md). The cap did not
 * change the streamed WER.
 */
export const LIVE_POCKETSPHINX_SEARCH: PocketSphinxSearchSettings = {
  ...POCKETSPHINX_SEARCH_PRESETS.default,
  maxwpf: 20,
  fwdflat: false,
};

/**
 * Where a live decoder's cepstral mean starts. Live decoding normalises with a running mean that starts from
 * the acoustic model's prior and weighs it as 5 s of speech, so a short session is decoded with the prior
 * nearly throughout; file jobs use each chunk's own mean. The en-us model's prior (its feat.params -cmninit)
 * is far from what the service hears (c0, the log energy, 41 against about 52), so live sessions start from
 * the median final running mean of the 27 speech clips in the shared audio set that are NOT among the WER
 * benchmark's 15 human-reference clips (any language: the mean is a channel and level property), measured with
 * pocketsphinx_continuous (docs/benchmarks.md, "Realtime: streamed vs file WER"). Applied only while the
 * decoder's mean is still `modelPrior`, i.e. with the en-us model it was measured for.
 */
export const LIVE_CEPSTRAL_MEAN = {
  modelPrior: [41.0, -5.29, -0.12, 5.09, 2.48, -4.07, -1.37, -1.78, -5.08, -2.05, -6.45, -1.42, 1.17],
  speechMean: [51.69, 3.2, 1.66, 9.66, -1.2, -2.89, -3.45, -3.07, 0.06, -1.54, 1.47, -0.78, -3.06],
} as const;

/**
 * CPU seconds one live session takes per second of audio: VAD, decoding, partials, utterance ends and the
 * first speech's second decode (bench/realtime-capacity.ts, sessions row: 0.24 on the idle 2-core benchmark
 * machine; docs/benchmarks.md). Where a process starts: its LiveCapacityMeter then measures its own sessions.
 */
export const LIVE_SESSION_CPU_PER_AUDIO_SECOND = 0.25;
/**
 * The share of the cores live sessions may take on average. Decoding comes in bursts (utterance ends, the
 * first speech decoded again) and the API and the sockets need CPU too: on 2 cores, 4 sessions (half the cores
 * by the cost above) kept final latency p95 at 0.42–0.50 s for 5 minutes, 6 (three quarters) let it reach 6 s
 * (bench/realtime.ts).
 */
const LIVE_CPU_BUDGET = 0.5;

/**
 * Sessions one process serves at once when REALTIME_MAX_SESSIONS is unset: what `cores` sustain in real time
 * at `cpuPerAudioSecond` per session (the benchmark machine's figure until the process has measured its own).
 */
export function liveSessionCapacity(
  cores: number,
  cpuPerAudioSecond: number = LIVE_SESSION_CPU_PER_AUDIO_SECOND,
): number {
  return Math.max(1, Math.floor((cores * LIVE_CPU_BUDGET) / cpuPerAudioSecond));
}

/**
 * A workspace's share of a process's sessions when REALTIME_MAX_PROCESS_SESSIONS_PER_WORKSPACE is unset: half,
 * at least 1, so that one tenant cannot hold every slot and make the others get `server_busy`.
 */
export function defaultWorkspaceShare(capacity: number): number {
  return Math.max(1, Math.floor(capacity / 2));
}
