import { EngineError } from '../engine.types';
import type { PocketSphinxSettings } from '../engine-settings';
import {
  addressOf,
  loadPocketSphinx,
  readPointer,
  type NativeHandle,
  type PocketSphinxApi,
} from './pocketsphinx.binding';
import { searchArguments } from './search-presets';

/** A word to add: a dictionary token and its CMU phones. */
export interface CustomWord {
  token: string;
  phones: string;
}

/** A word hypothesis in frames (100 per second) from the start of the utterance. */
export interface DecodedSegment {
  word: string;
  startFrame: number;
  endFrame: number;
}

export const FRAMES_PER_SECOND = 100;
const DEFAULT_SEARCH = '_default';
/**
 * Added last with update = 1 to rebuild the searches once (see addWords). The leading '+' makes the recogniser
 * drop it like PocketSphinx's own noise words if it is ever recognised; its phones are a sequence no English
 * word has, so it hardly ever is.
 */
export const VOCABULARY_END_MARKER = '+vocabulary+';
const VOCABULARY_END_PHONES = 'ZH NG ZH NG ZH';

/**
 * One in-process PocketSphinx decoder (libpocketsphinx through koffi). Each utterance is decoded in one call
 * with full-utterance processing, so cepstral mean normalisation uses the whole chunk, and each one starts a
 * new stream, so frame numbers restart at zero.
 */
export class PocketSphinxDecoder {
  private readonly api: PocketSphinxApi;
  private decoder: NativeHandle | null;
  private readonly config: NativeHandle;

  constructor(settings: PocketSphinxSettings) {
    try {
      this.api = loadPocketSphinx(settings.libraryPath);
    } catch (error) {
      throw new EngineError('ENGINE_FAILED', `cannot load PocketSphinx: ${(error as Error).message}`);
    }
    const argv = [
      '-hmm',
      settings.acousticModelPath,
      '-lm',
      settings.languageModelPath,
      '-dict',
      settings.dictionaryPath,
      ...searchArguments(settings.search),
      // Words are added to the language model at run time, which a memory-mapped model refuses.
      '-mmap',
      'no',
      '-logfn',
      '/dev/null',
    ];
    const config = this.api.cmd_ln_parse_r(null, this.api.ps_args(), argv.length, argv, 1);
    if (!config) throw new EngineError('ENGINE_FAILED', 'PocketSphinx rejected its configuration');
    this.config = config;
    this.decoder = this.api.ps_init(config);
    if (!this.decoder) {
      throw new EngineError(
        'ENGINE_FAILED',
        'PocketSphinx failed to load its models (check the model paths)',
      );
    }
  }

  lookup(word: string): string | null {
    return this.api.ps_lookup_word(this.handle(), word);
  }

  /**
   * Adds words to the dictionary and the language model and returns the tokens the decoder took.
   *
   * Cost: ps_add_word(update = 1) rebuilds every search's lexicon tree over the model's ~134k words (about
   * 0.15 s), which made 500 words cost over a minute. So the words go in with update = 0 (dictionary entry only),
   * their context tables are filled in by dict2pid_add_word (what update = 1 does besides the rebuild), and one
   * end marker added with update = 1 rebuilds the searches once for all of them.
   *
   * Safety: each word enters the language model once, here, with the vocabulary weight (relative to a uniform
   * distribution over the model's words), and only after its dictionary entry. The code before this added the
   * unigram first and then called ps_add_word(update = 1), which adds it a second time; that crashed the process
   * in lm_trie_score while decoding (2 of 6 runs with 30 random words, and with 500), and so did adding all
   * unigrams before the dictionary entries (4 of 5 runs). In this order: no crash in 11 runs of 30 to 500 random
   * words (bench/vocabulary-cost.ts runs more). The cause inside libsphinxbase's trie model was not pinned down.
   * The end marker is the only word added with update = 1, and it is not added here.
   *
   * When the decoder's layout cannot be confirmed (another libpocketsphinx), every word goes in with update = 1
   * and its default weight instead: slower and not boosted, but safe.
   */
  addWords(words: readonly CustomWord[], weight: number): string[] {
    if (words.length === 0) return [];
    const decoder = this.handle();
    const dictionaryToPhones = this.dictionaryToPhones(decoder);
    if (!dictionaryToPhones) {
      return words
        .filter((word) => this.api.ps_add_word(decoder, word.token, word.phones, 1) >= 0)
        .map((word) => word.token);
    }
    const languageModel = this.api.ps_get_lm(decoder, DEFAULT_SEARCH);
    const added: string[] = [];
    for (const word of words) {
      if (this.api.ps_lookup_word(decoder, word.token) !== null) continue;
      const wordId = this.api.ps_add_word(decoder, word.token, word.phones, 0);
      if (wordId < 0) continue;
      this.api.dict2pid_add_word(dictionaryToPhones, wordId);
      if (languageModel) this.api.ngram_model_add_word(languageModel, word.token, weight);
      added.push(word.token);
    }
    if (this.api.ps_lookup_word(decoder, VOCABULARY_END_MARKER) === null) {
      this.api.ps_add_word(decoder, VOCABULARY_END_MARKER, VOCABULARY_END_PHONES, 1);
    }
    return added;
  }

  /**
   * The decoder's dictionary-to-phone tables (ps_decoder_t.d2p), which the C API does not hand out. Read from
   * the struct layout of libpocketsphinx 5prealpha (config, refcount, acmod, dict, d2p) and used only when three
   * cross-checks hold: the first field is the configuration we passed, and the tables point back to the
   * decoder's dictionary and to its acoustic model's model definition.
   */
  private dictionaryToPhones(decoder: NativeHandle): NativeHandle | null {
    const pointer = 8;
    const config = readPointer(decoder, 0);
    const acousticModel = readPointer(decoder, 2 * pointer);
    const dictionary = readPointer(decoder, 3 * pointer);
    const tables = readPointer(decoder, 4 * pointer);
    if (!acousticModel || !dictionary || !tables || addressOf(config) !== addressOf(this.config)) return null;
    const sameDictionary = addressOf(readPointer(tables, 2 * pointer)) === addressOf(dictionary);
    const sameModel =
      addressOf(readPointer(tables, pointer)) === addressOf(readPointer(acousticModel, 5 * pointer));
    return sameDictionary && sameModel ? tables : null;
  }

  decode(samples: Int16Array): DecodedSegment[] {
    const decoder = this.handle();
    if (
      this.api.ps_start_stream(decoder) < 0 ||
      this.api.ps_start_utt(decoder) < 0 ||
      this.api.ps_process_raw(decoder, samples, samples.length, 0, 1) < 0 ||
      this.api.ps_end_utt(decoder) < 0
    ) {
      throw new EngineError('ENGINE_FAILED', 'PocketSphinx failed to decode a chunk');
    }
    const segments: DecodedSegment[] = [];
    for (let segment = this.api.ps_seg_iter(decoder); segment; segment = this.api.ps_seg_next(segment)) {
      const start: [number] = [0];
      const end: [number] = [0];
      this.api.ps_seg_frames(segment, start, end);
      segments.push({ word: this.api.ps_seg_word(segment), startFrame: start[0], endFrame: end[0] });
    }
    return segments;
  }

  close(): void {
    if (!this.decoder) return;
    this.api.ps_free(this.decoder);
    this.api.cmd_ln_free_r(this.config);
    this.decoder = null;
  }

  private handle(): NativeHandle {
    if (!this.decoder) throw new EngineError('ENGINE_FAILED', 'PocketSphinx decoder already closed');
    return this.decoder;
  }
}
