/**
 * PocketSphinx search parameters. Beams are probability ratios to the best hypothesis of the frame: a smaller
 * number keeps more hypotheses alive (slower, fewer search errors). The presets are the settings measured by
 * `npm run bench:pocketsphinx-tuning` (docs/benchmarks.md, "PocketSphinx search tuning").
 */
export interface PocketSphinxSearchSettings {
  /** -beam: HMMs whose score falls this far below the frame's best are pruned. */
  beam: number;
  /** -wbeam: the same for word exits. */
  wbeam: number;
  /** -pbeam: the same for phone transitions. */
  pbeam: number;
  /** -lw: language-model weight against the acoustic score. */
  lw: number;
  /** -ds: frame downsampling (2 scores every other frame). */
  ds: number;
  /** -topn: Gaussians scored per codebook. */
  topn: number;
  /** -maxhmmpf: active HMMs per frame at most (-1: no limit). */
  maxhmmpf: number;
  /** -maxwpf: distinct words exiting per frame at most (-1: no limit). */
  maxwpf: number;
  /**
   * -fwdflat: a second, flat-lexicon pass over the whole utterance after the tree search (libpocketsphinx's
   * default: on). It runs when the utterance ends, so live decoding turns it off (realtime/recognition).
   */
  fwdflat?: boolean;
}

export const POCKETSPHINX_SEARCH_PRESET_NAMES = ['fast', 'default', 'wide'] as const;
export type PocketSphinxSearchPresetName = (typeof POCKETSPHINX_SEARCH_PRESET_NAMES)[number];

export const POCKETSPHINX_SEARCH_PRESETS: Record<PocketSphinxSearchPresetName, PocketSphinxSearchSettings> = {
  /** Fewer frames and Gaussians scored, narrower beams, a hard cap on active HMMs. */
  fast: {
    beam: 1e-40,
    wbeam: 1e-30,
    pbeam: 1e-40,
    lw: 6.5,
    ds: 2,
    topn: 2,
    maxhmmpf: 3000,
    maxwpf: 10,
  },
  /** libpocketsphinx 5prealpha's own defaults, spelled out. */
  default: {
    beam: 1e-48,
    wbeam: 7e-29,
    pbeam: 1e-48,
    lw: 6.5,
    ds: 1,
    topn: 4,
    maxhmmpf: 30000,
    maxwpf: -1,
  },
  /** Wider beams and no cap on active HMMs (-lw 9.5 with these beams was worse: 37.2 %). */
  wide: {
    beam: 1e-60,
    wbeam: 1e-50,
    pbeam: 1e-60,
    lw: 6.5,
    ds: 1,
    topn: 4,
    maxhmmpf: -1,
    maxwpf: -1,
  },
};

/**
 * Chosen from bench:pocketsphinx-tuning (15 human-reference clips): default 33.0 % WER; wide 32.1 % at about twice
 * the recognition time; fast 40.8 % at about a third of it. None reaches 30 %.
 */
export const DEFAULT_POCKETSPHINX_SEARCH_PRESET: PocketSphinxSearchPresetName = 'default';

/** The decoder's command-line arguments for these settings. */
export function searchArguments(search: PocketSphinxSearchSettings): string[] {
  return [
    '-beam',
    String(search.beam),
    '-wbeam',
    String(search.wbeam),
    '-pbeam',
    String(search.pbeam),
    '-lw',
    String(search.lw),
    '-ds',
    String(search.ds),
    '-topn',
    String(search.topn),
    '-maxhmmpf',
    String(search.maxhmmpf),
    '-maxwpf',
    String(search.maxwpf),
    ...(search.fwdflat === undefined ? [] : ['-fwdflat', search.fwdflat ? 'yes' : 'no']),
  ];
}
