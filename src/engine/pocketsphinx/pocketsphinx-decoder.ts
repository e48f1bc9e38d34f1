import * as fs from 'node:fs';
import { EngineError } from '../engine.types';
import type { PocketSphinxSettings } from '../engine-settings';
import { loadPocketSphinx, type NativeHandle, type PocketSphinxApi } from './pocketsphinx.binding';
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
 * One in-process PocketSphinx decoder (libpocketsphinx through koffi). Each utterance is decoded in one call
 * with full-utterance processing, so cepstral mean normalisation uses the whole chunk, and each one starts a
 * new stream, so frame numbers restart at zero.
 */
export class PocketSphinxDecoder {
  private readonly api: PocketSphinxApi;
  private decoder: NativeHandle | null;
  private readonly config: NativeHandle;
  private readonly dictionaryPath: string;

  constructor(settings: PocketSphinxSettings) {
    this.dictionaryPath = settings.dictionaryPath;
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
   * Adds words to the dictionary and the language model and returns the tokens the decoder took. Each unigram
   * goes in first with the given weight (relative to a uniform distribution over the model's words), because the
   * dictionary call would otherwise add it with weight 1.
   *
   * ps_add_word(update = 1) rebuilds every search's lexicon tree over the model's ~134k words (about 0.15 s), so
   * 500 words cost over a minute. With update = 0 it only adds the dictionary entry and skips two things: the
   * search rebuild, which the last word's update = 1 does once for all, and dict2pid_add_word, which only fills in
   * the context tables of the word's first and last phone pairs when no word seen so far has them. Words whose
   * pairs the dictionary already has therefore go in with update = 0 and lose nothing; a word with a new pair
   * goes in with update = 1.
   */
  addWords(words: readonly CustomWord[], weight: number): string[] {
    const decoder = this.handle();
    const languageModel = this.api.ps_get_lm(decoder, DEFAULT_SEARCH);
    const known = knownPhonePairs(this.dictionaryPath);
    const added: string[] = [];
    words.forEach((word, index) => {
      if (languageModel) this.api.ngram_model_add_word(languageModel, word.token, weight);
      const pairs = phonePairs(word.phones);
      const update = index === words.length - 1 || pairs.some((pair) => !known.has(pair));
      if (this.api.ps_add_word(decoder, word.token, word.phones, update ? 1 : 0) < 0) return;
      added.push(word.token);
      if (update) for (const pair of pairs) known.add(pair);
    });
    return added;
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

const phonePairsByDictionary = new Map<string, Set<string>>();

/**
 * The first and last phone pairs of every pronunciation in the model's dictionary (read once per process and
 * extended as words are added): the pairs for which the decoder already has context tables.
 */
function knownPhonePairs(dictionaryPath: string): Set<string> {
  let pairs = phonePairsByDictionary.get(dictionaryPath);
  if (!pairs) {
    pairs = new Set();
    for (const line of fs.readFileSync(dictionaryPath, 'utf8').split('\n')) {
      const phones = line.trim().split(/\s+/).slice(1).join(' ');
      for (const pair of phonePairs(phones)) pairs.add(pair);
    }
    phonePairsByDictionary.set(dictionaryPath, pairs);
  }
  return pairs;
}

/** "first second" and "secondLast last" with a marker for which end; none for a one-phone word. */
function phonePairs(phones: string): string[] {
  const list = phones.split(' ').filter((phone) => phone.length > 0);
  if (list.length < 2) return [];
  return [`<${list[0]} ${list[1]}`, `>${list.at(-2)} ${list.at(-1)}`];
}
