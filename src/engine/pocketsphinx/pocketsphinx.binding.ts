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
  ps_seg_iter(decoder: NativeHandle): NativeHandle | null;
  ps_seg_next(segment: NativeHandle): NativeHandle | null;
  ps_seg_word(segment: NativeHandle): string;
  ps_seg_frames(segment: NativeHandle, start: [number], end: [number]): void;
  ps_lookup_word(decoder: NativeHandle, word: string): string | null;
  ps_add_word(decoder: NativeHandle, word: string, phones: string, update: number): number;
  dict2pid_add_word(dictionaryToPhones: NativeHandle, wordId: number): number;
  ps_get_lm(decoder: NativeHandle, searchName: string): NativeHandle | null;
  ngram_model_add_word(model: NativeHandle, word: string, weight: number): number;
}

const POCKETSPHINX_SIGNATURES: Record<
  Exclude<keyof PocketSphinxApi, 'cmd_ln_parse_r' | 'cmd_ln_free_r' | 'ngram_model_add_word'>,
  string
> = {
  ps_args: 'void* ps_args()',
  ps_init: 'void* ps_init(void*)',
  ps_free: 'int ps_free(void*)',
  ps_start_stream: 'int ps_start_stream(void*)',
  ps_start_utt: 'int ps_start_utt(void*)',
  ps_process_raw: 'int ps_process_raw(void*, const int16_t*, size_t, int, int)',
  ps_end_utt: 'int ps_end_utt(void*)',
  ps_seg_iter: 'void* ps_seg_iter(void*)',
  ps_seg_next: 'void* ps_seg_next(void*)',
  ps_seg_word: 'const char* ps_seg_word(void*)',
  ps_seg_frames: 'void ps_seg_frames(void*, _Out_ int*, _Out_ int*)',
  ps_lookup_word: 'const char* ps_lookup_word(void*, const char*)',
  ps_add_word: 'int ps_add_word(void*, const char*, const char*, int)',
  dict2pid_add_word: 'int dict2pid_add_word(void*, int)',
  ps_get_lm: 'void* ps_get_lm(void*, const char*)',
};

const SPHINXBASE_SIGNATURES = {
  cmd_ln_parse_r: 'void* cmd_ln_parse_r(void*, void*, int, const char**, int)',
  cmd_ln_free_r: 'int cmd_ln_free_r(void*)',
  ngram_model_add_word: 'int ngram_model_add_word(void*, const char*, float)',
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

/** The pointer stored `offset` bytes into a native struct, or null for a null pointer. */
export function readPointer(handle: NativeHandle, offset: number): NativeHandle | null {
  return (koffi.decode(handle, offset, 'void *') as NativeHandle | null) ?? null;
}

/** A native pointer's address, for comparing two pointers. */
export function addressOf(handle: NativeHandle | null): bigint {
  return handle === null ? 0n : koffi.address(handle);
}
