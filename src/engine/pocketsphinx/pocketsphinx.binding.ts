import koffi from 'koffi';

/** Opaque native pointers handed out by libpocketsphinx / libsphinxbase. */
export type NativeHandle = { readonly __native: unique symbol };

/** The slice of the PocketSphinx 5prealpha C API (Debian libpocketsphinx3) that the recogniser uses. */
export interface PocketSphinxApi {
  ps_args(): NativeHandle;
  cmd_ln_parse_r(
    config: null,
    definitions: NativeHandle,
    argc: number,
    argv: string[],
    strict: number,
  ): NativeHandle | null;
  cmd_ln_free_r(config: NativeHandle): number;
  ps_init(config: NativeHandle): NativeHandle | null;
  ps_free(decoder: NativeHandle): number;
  ps_start_stream(decoder: NativeHandle): number;
  ps_start_utt(decoder: NativeHandle): number;
  ps_process_raw(
    decoder: NativeHandle,
    samples: Int16Array,
    count: number,
    noSearch: number,
    fullUtterance: number,
  ): number;
  ps_end_utt(decoder: NativeHandle): number;
  /** The best hypothesis so far (the utterance may still be open); null before any frame was searched. */
  ps_get_hyp(decoder: NativeHandle, score: [number]): string | null;
  ps_seg_iter(decoder: NativeHandle): NativeHandle | null;
  ps_seg_next(segment: NativeHandle): NativeHandle | null;
  ps_seg_word(segment: NativeHandle): string;
  ps_seg_frames(segment: NativeHandle, start: [number], end: [number]): void;
  /** The segment's log posterior (in the decoder's logmath base); the out-parameters are its scores. */
  ps_seg_prob(segment: NativeHandle, acoustic: [number], language: [number], backoff: [number]): number;
  ps_lookup_word(decoder: NativeHandle, word: string): string | null;
  ps_add_word(decoder: NativeHandle, word: string, phones: string, update: number): number;
  ps_get_lm(decoder: NativeHandle, searchName: string): NativeHandle | null;
  ps_set_lm(decoder: NativeHandle, searchName: string, model: NativeHandle): number;
  ps_set_search(decoder: NativeHandle, searchName: string): number;
  ps_unset_search(decoder: NativeHandle, searchName: string): number;
  ps_get_logmath(decoder: NativeHandle): NativeHandle;
  /** The decoder's feature computation (sphinxbase feat_t), which owns the live cepstral mean. */
  ps_get_feat(decoder: NativeHandle): NativeHandle;
  /** Copies the live cepstral mean (veclen floats) into `mean`. */
  cmn_live_get(cmn: NativeHandle, mean: Float32Array): void;
  /** Replaces the live cepstral mean, weighted as the running mean's full window (500 frames). */
  cmn_live_set(cmn: NativeHandle, mean: Float32Array): void;
  ngram_model_read(
    config: NativeHandle,
    path: string,
    fileType: number,
    logMath: NativeHandle,
  ): NativeHandle | null;
  ngram_model_set_init(
    config: NativeHandle,
    models: NativeHandle[],
    names: string[],
    weights: Float32Array,
    count: number,
  ): NativeHandle | null;
  ngram_model_set_lookup(set: NativeHandle, name: null): NativeHandle | null;
  ngram_model_get_size(model: NativeHandle): number;
  ngram_model_retain(model: NativeHandle): NativeHandle;
  ngram_model_free(model: NativeHandle): number;
  logmath_exp(logMath: NativeHandle, logValue: number): number;
}

/** sphinxbase's ngram_file_type_t: NGRAM_ARPA, the text format. */
export const NGRAM_ARPA = 1;

/**
 * Where sphinxbase 5prealpha's feat_t keeps its cmn_t pointer (x86-64/arm64 layout: after eleven fields and the
 * compute_feat function pointer), and where cmn_t keeps veclen. No accessor is exported, so the live cepstral
 * mean is reached through these offsets; the reader checks what it finds (PocketSphinxDecoder.seedLiveCepstralMean).
 */
export const FEAT_CMN_STRUCT_OFFSET = 88;
export const CMN_VECLEN_OFFSET = 28;
/** cmn_t's running sum of the normalised frames' cepstra (an mfcc_t pointer) and the frame count it holds. */
export const CMN_SUM_OFFSET = 16;
export const CMN_NFRAME_OFFSET = 24;

/** The cmn_t a feat_t points to, and its vector length (0 when the pointer is null). */
export function liveCepstralMeanHandle(feat: NativeHandle): { cmn: NativeHandle | null; length: number } {
  const cmn = koffi.decode(feat, FEAT_CMN_STRUCT_OFFSET, 'void*') as NativeHandle | null;
  if (!cmn) return { cmn: null, length: 0 };
  return { cmn, length: koffi.decode(cmn, CMN_VECLEN_OFFSET, 'int32_t') as number };
}

/**
 * What the running mean has accumulated: the sum of the cepstra it took in (cmn_live_set starts it at
 * mean × 500 with 500 frames) and the number of frames. Read only through a handle liveCepstralMeanHandle found.
 */
export function liveCepstralMeanAccumulator(
  cmn: NativeHandle,
  length: number,
): { sum: number[]; frames: number } | null {
  const sum = koffi.decode(cmn, CMN_SUM_OFFSET, 'void*') as NativeHandle | null;
  if (!sum) return null;
  return {
    sum: koffi.decode(sum, 'float', length) as number[],
    frames: koffi.decode(cmn, CMN_NFRAME_OFFSET, 'int32_t') as number,
  };
}

/** The functions that live in libsphinxbase rather than libpocketsphinx. */
type SphinxbaseFunction =
  | 'cmd_ln_parse_r'
  | 'cmd_ln_free_r'
  | 'ngram_model_read'
  | 'ngram_model_set_init'
  | 'ngram_model_set_lookup'
  | 'ngram_model_get_size'
  | 'ngram_model_retain'
  | 'ngram_model_free'
  | 'logmath_exp'
  | 'cmn_live_get'
  | 'cmn_live_set';

const POCKETSPHINX_SIGNATURES: Record<Exclude<keyof PocketSphinxApi, SphinxbaseFunction>, string> = {
  ps_args: 'void* ps_args()',
  ps_init: 'void* ps_init(void*)',
  ps_free: 'int ps_free(void*)',
  ps_start_stream: 'int ps_start_stream(void*)',
  ps_start_utt: 'int ps_start_utt(void*)',
  ps_process_raw: 'int ps_process_raw(void*, const int16_t*, size_t, int, int)',
  ps_end_utt: 'int ps_end_utt(void*)',
  ps_get_hyp: 'const char* ps_get_hyp(void*, _Out_ int32_t*)',
  ps_seg_iter: 'void* ps_seg_iter(void*)',
  ps_seg_next: 'void* ps_seg_next(void*)',
  ps_seg_word: 'const char* ps_seg_word(void*)',
  ps_seg_frames: 'void ps_seg_frames(void*, _Out_ int*, _Out_ int*)',
  ps_seg_prob: 'int32_t ps_seg_prob(void*, _Out_ int32_t*, _Out_ int32_t*, _Out_ int32_t*)',
  ps_lookup_word: 'const char* ps_lookup_word(void*, const char*)',
  ps_add_word: 'int ps_add_word(void*, const char*, const char*, int)',
  ps_get_lm: 'void* ps_get_lm(void*, const char*)',
  ps_set_lm: 'int ps_set_lm(void*, const char*, void*)',
  ps_set_search: 'int ps_set_search(void*, const char*)',
  ps_unset_search: 'int ps_unset_search(void*, const char*)',
  ps_get_logmath: 'void* ps_get_logmath(void*)',
  ps_get_feat: 'void* ps_get_feat(void*)',
};

const SPHINXBASE_SIGNATURES: Record<SphinxbaseFunction, string> = {
  cmd_ln_parse_r: 'void* cmd_ln_parse_r(void*, void*, int, const char**, int)',
  cmd_ln_free_r: 'int cmd_ln_free_r(void*)',
  ngram_model_read: 'void* ngram_model_read(void*, const char*, int, void*)',
  ngram_model_set_init: 'void* ngram_model_set_init(void*, void**, const char**, const float*, int)',
  ngram_model_set_lookup: 'void* ngram_model_set_lookup(void*, const char*)',
  ngram_model_get_size: 'int32_t ngram_model_get_size(void*)',
  ngram_model_retain: 'void* ngram_model_retain(void*)',
  ngram_model_free: 'int ngram_model_free(void*)',
  logmath_exp: 'double logmath_exp(void*, int32_t)',
  cmn_live_get: 'void cmn_live_get(void*, float*)',
  cmn_live_set: 'void cmn_live_set(void*, const float*)',
};

const loaded = new Map<string, PocketSphinxApi>();

/** Loads libpocketsphinx (and the libsphinxbase it links) once per process. */
export function loadPocketSphinx(libraryPath: string): PocketSphinxApi {
  const cached = loaded.get(libraryPath);
  if (cached) return cached;
  const pocketsphinx = koffi.load(libraryPath);
  const sphinxbase = koffi.load(libraryPath.replace('libpocketsphinx', 'libsphinxbase'));
  const api: Record<string, unknown> = {};
  for (const [name, signature] of Object.entries(POCKETSPHINX_SIGNATURES))
    api[name] = pocketsphinx.func(signature);
  for (const [name, signature] of Object.entries(SPHINXBASE_SIGNATURES))
    api[name] = sphinxbase.func(signature);
  const typed = api as unknown as PocketSphinxApi;
  loaded.set(libraryPath, typed);
  return typed;
}
