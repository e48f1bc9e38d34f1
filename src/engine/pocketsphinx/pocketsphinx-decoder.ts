import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineError } from '../engine.types';
import type { PocketSphinxSettings } from '../engine-settings';
import {
  liveCepstralMeanAccumulator,
  liveCepstralMeanHandle,
  loadPocketSphinx,
  NGRAM_ARPA,
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
  /** Posterior probability of the word in the utterance's lattice, 0..1. */
  posterior: number;
}

export const FRAMES_PER_SECOND = 100;
const DEFAULT_SEARCH = '_default';
/** sphinxbase's cmn_prior window (CMN_WIN): cmn_live_set, and each window shift, weigh the mean as this many frames. */
const LIVE_MEAN_SET_FRAMES = 500;
const VOCABULARY_MODEL = 'vocabulary';
const GENERIC_MODEL = 'generic';

/**
 * One in-process PocketSphinx decoder (libpocketsphinx through koffi). Each utterance is decoded in one call
 * with full-utterance processing, so cepstral mean normalisation uses the whole chunk, and each one starts a
 * new stream, so frame numbers restart at zero.
 */
/** The most probability a job's custom words may take together (a few words keep their full weight). */
const MAX_VOCABULARY_SHARE = 0.1;

export class PocketSphinxDecoder {
  private readonly api: PocketSphinxApi;
  private decoder: NativeHandle | null;
  private readonly config: NativeHandle;
  /** Whether seedLiveCepstralMean found and replaced the prior (the struct layout it reads is the expected one). */
  private liveMeanSeeded = false;
  /** A mean adoptLiveInputMean measured, set when the open utterance ends. */
  private pendingMean: Float32Array | null = null;

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
      // Acoustic model files are read, not memory-mapped: the setting the tuning and WER benchmarks ran with (the
      // trie language model is read into memory either way).
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
   * Adds words to the dictionary and makes them recognisable, and returns the tokens the decoder took.
   *
   * Safety: the words never enter the generic language model. That model is a trie (libsphinxbase 5prealpha), and a
   * word added to it (ngram_model_add_word, or ps_add_word, which calls it for every n-gram search) gets an id
   * beyond the trie's vocabulary. Once such a word is in the search history, the trie's bigram/trigram lookup
   * (uniform_find in lm_trie.c) interpolates with a key larger than the vocabulary size it was built for, steps
   * past the end of the n-gram node, and reads until it faults: the SIGSEGV in lm_trie_score. Instead:
   *
   *   1. the default search is removed (ps_unset_search), keeping its generic model alive, so that ps_add_word
   *      (update = 0: dictionary entry and context tables only) finds no n-gram search to add the words to;
   *   2. the words become a unigram model of their own, read from a temporary ARPA file;
   *   3. an interpolated set of the generic and the vocabulary model (ngram_model_set_init with weights) becomes
   *      the default search's model (ps_set_lm), built once over the whole dictionary.
   *
   * In the set a vocabulary word maps to "unknown" in the generic model: scoring it there gives zero probability,
   * and in a history it cuts the generic model's context short (the trie stops at the first invalid history id),
   * so no id beyond the trie's vocabulary ever reaches it. Both weights are 1, so a generic word scores exactly as
   * before (the vocabulary model adds zero probability), and a vocabulary word gets `weight` times a uniform
   * share of the generic vocabulary (weight / its size, at most 1), as ngram_model_add_word would have given it.
   */
  addWords(words: readonly CustomWord[], weight: number): string[] {
    const decoder = this.handle();
    const fresh = words.filter((word) => this.api.ps_lookup_word(decoder, word.token) === null);
    if (fresh.length === 0) return [];
    const searchModel = this.api.ps_get_lm(decoder, DEFAULT_SEARCH);
    // The search wraps its model in a one-model set; the model inside is the generic one.
    const generic = searchModel && this.api.ngram_model_set_lookup(searchModel, null);
    if (!generic) throw new EngineError('ENGINE_FAILED', 'PocketSphinx has no default language model');
    this.api.ngram_model_retain(generic);
    try {
      if (this.api.ps_unset_search(decoder, DEFAULT_SEARCH) < 0) {
        throw new EngineError('ENGINE_FAILED', 'PocketSphinx could not replace its search');
      }
      const added = fresh
        .filter((word) => this.api.ps_add_word(decoder, word.token, word.phones, 0) >= 0)
        .map((word) => word.token);
      const model = added.length > 0 ? this.interpolatedModel(generic, added, weight) : generic;
      try {
        if (
          this.api.ps_set_lm(decoder, DEFAULT_SEARCH, model) < 0 ||
          this.api.ps_set_search(decoder, DEFAULT_SEARCH) < 0
        ) {
          throw new EngineError('ENGINE_FAILED', 'PocketSphinx could not build its search');
        }
      } finally {
        if (model !== generic) this.api.ngram_model_free(model);
      }
      return added;
    } finally {
      this.api.ngram_model_free(generic);
    }
  }

  /** The generic model and a unigram model of `tokens`, interpolated (see addWords). */
  private interpolatedModel(generic: NativeHandle, tokens: readonly string[], weight: number): NativeHandle {
    // Each word gets `weight` uniform shares, but all of them together at most MAX_VOCABULARY_SHARE of the
    // probability: 500 boosted words would otherwise outweigh what is said (rare words replacing spoken ones).
    const probability = Math.min(
      weight / this.api.ngram_model_get_size(generic),
      MAX_VOCABULARY_SHARE / tokens.length,
    );
    const log10 = Math.log10(probability).toFixed(6);
    const arpa = [
      '\\data\\',
      `ngram 1=${tokens.length}`,
      '',
      '\\1-grams:',
      ...tokens.map((token) => `${log10} ${token}`),
      '',
      '\\end\\',
      '',
    ].join('\n');
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'pocketsphinx-vocabulary-'));
    let vocabulary: NativeHandle | null;
    try {
      const file = path.join(directory, 'vocabulary.lm');
      fs.writeFileSync(file, arpa);
      vocabulary = this.api.ngram_model_read(
        this.config,
        file,
        NGRAM_ARPA,
        this.api.ps_get_logmath(this.handle()),
      );
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
    if (!vocabulary) throw new EngineError('ENGINE_FAILED', 'PocketSphinx rejected the vocabulary model');
    try {
      // The generic model goes last: the set reports the n-gram order used by its last model.
      const set = this.api.ngram_model_set_init(
        this.config,
        [vocabulary, generic],
        [VOCABULARY_MODEL, GENERIC_MODEL],
        new Float32Array([1, 1]),
        2,
      );
      if (!set) throw new EngineError('ENGINE_FAILED', 'PocketSphinx could not combine the language models');
      return set;
    } finally {
      // The set holds its own references to both models.
      this.api.ngram_model_free(vocabulary);
    }
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
    return this.segments();
  }

  /**
   * Live decoding, one utterance at a time: start, feed pieces as they arrive (searched at once, with the
   * running cepstral mean instead of the whole chunk's), read the best hypothesis at any point, end for the
   * words. Frame numbers restart at zero with each utterance.
   */
  startUtterance(): void {
    const decoder = this.handle();
    if (this.api.ps_start_stream(decoder) < 0 || this.api.ps_start_utt(decoder) < 0) {
      throw new EngineError('ENGINE_FAILED', 'PocketSphinx failed to start an utterance');
    }
  }

  /**
   * Starts live cepstral mean normalisation from `mean` instead of the acoustic model's prior, if the decoder's
   * mean is still exactly `expectedPrior` (so a different model, or a sphinxbase whose layout is not the one
   * liveCepstralMeanHandle reads, is left alone). The running mean then adapts from there as before. Returns
   * whether the mean was replaced. (-cmninit cannot do this: the model's feat.params overrides it.)
   */
  seedLiveCepstralMean(expectedPrior: readonly number[], mean: readonly number[]): boolean {
    const { cmn, length } = liveCepstralMeanHandle(this.api.ps_get_feat(this.handle()));
    if (!cmn || length !== mean.length || length !== expectedPrior.length) return false;
    const current = this.readLiveMean(cmn, length);
    if (!expectedPrior.every((value, index) => Math.abs(current[index] - value) < 0.005)) return false;
    this.api.cmn_live_set(cmn, Float32Array.from(mean));
    this.liveMeanSeeded = true;
    return true;
  }

  /**
   * Replaces the live cepstral mean by the mean of the frames it took in since it was last set (seeded or
   * adopted), i.e. of the speech fed since then; call it with the utterance still open (ending one moves the
   * mean). Returns false, changing nothing, unless the decoder was seeded (so the struct layout was checked) and
   * at least `minimumFrames` frames came in. Once the running sum holds more than 800 frames (3 s of speech
   * after a set) sphinxbase shifts its window (the sum decays to the mean's weight of 500 frames), after which
   * this is the mean of the frames since that shift: adopt within 3 s for the mean of all of them.
   */
  adoptLiveInputMean(minimumFrames: number): boolean {
    if (!this.liveMeanSeeded) return false;
    const { cmn, length } = liveCepstralMeanHandle(this.api.ps_get_feat(this.handle()));
    if (!cmn) return false;
    const accumulated = liveCepstralMeanAccumulator(cmn, length);
    const frames = (accumulated?.frames ?? 0) - LIVE_MEAN_SET_FRAMES;
    if (!accumulated || frames < minimumFrames) return false;
    const current = this.readLiveMean(cmn, length);
    // The sum started at mean × 500 (set, or shifted), so what is beyond that came from the frames.
    const inputMean = accumulated.sum.map(
      (sum, index) => (sum - current[index] * LIVE_MEAN_SET_FRAMES) / frames,
    );
    if (!inputMean.every(Number.isFinite)) return false;
    this.pendingMean = Float32Array.from(inputMean);
    return true;
  }

  /** The cepstral mean the decoder normalises with now (after a file chunk: that chunk's own mean). */
  cepstralMean(): number[] | null {
    const { cmn, length } = liveCepstralMeanHandle(this.api.ps_get_feat(this.handle()));
    if (!cmn) return null;
    return Array.from(this.readLiveMean(cmn, length));
  }

  /** Ends the open utterance without reading its words (a restart, or a client's clear). */
  abandonUtterance(): void {
    if (this.api.ps_end_utt(this.handle()) < 0) {
      throw new EngineError('ENGINE_FAILED', 'PocketSphinx failed to end an utterance');
    }
    this.applyPendingMean();
  }

  feed(samples: Int16Array): void {
    if (samples.length === 0) return;
    if (this.api.ps_process_raw(this.handle(), samples, samples.length, 0, 0) < 0) {
      throw new EngineError('ENGINE_FAILED', 'PocketSphinx failed to decode live audio');
    }
  }

  /** The open utterance's best hypothesis: words separated by spaces, without fillers. */
  hypothesis(): string {
    return this.api.ps_get_hyp(this.handle(), [0]) ?? '';
  }

  endUtterance(): DecodedSegment[] {
    if (this.api.ps_end_utt(this.handle()) < 0) {
      throw new EngineError('ENGINE_FAILED', 'PocketSphinx failed to end an utterance');
    }
    const segments = this.segments();
    this.applyPendingMean();
    return segments;
  }

  /** The `length` values of the mean a cmn_t (from liveCepstralMeanHandle) holds now. */
  private readLiveMean(cmn: NativeHandle, length: number): Float32Array {
    const mean = new Float32Array(length);
    this.api.cmn_live_get(cmn, mean);
    return mean;
  }

  /** An adopted mean takes effect once the utterance ended (ps_end_utt updates the running mean itself). */
  private applyPendingMean(): void {
    if (!this.pendingMean) return;
    const { cmn } = liveCepstralMeanHandle(this.api.ps_get_feat(this.handle()));
    if (cmn) this.api.cmn_live_set(cmn, this.pendingMean);
    this.pendingMean = null;
  }

  private segments(): DecodedSegment[] {
    const decoder = this.handle();
    const segments: DecodedSegment[] = [];
    const logMath = this.api.ps_get_logmath(decoder);
    for (let segment = this.api.ps_seg_iter(decoder); segment; segment = this.api.ps_seg_next(segment)) {
      const start: [number] = [0];
      const end: [number] = [0];
      this.api.ps_seg_frames(segment, start, end);
      const logPosterior = this.api.ps_seg_prob(segment, [0], [0], [0]);
      segments.push({
        word: this.api.ps_seg_word(segment),
        startFrame: start[0],
        endFrame: end[0],
        posterior: clampProbability(this.api.logmath_exp(logMath, logPosterior)),
      });
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

/** Rounding in log space can put a posterior a hair outside 0..1. */
function clampProbability(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
