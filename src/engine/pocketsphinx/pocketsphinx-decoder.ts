import { EngineError } from '../engine.types';
import type { PocketSphinxSettings } from '../engine-settings';
import { loadPocketSphinx, type NativeHandle, type PocketSphinxApi } from './pocketsphinx.binding';

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
   * Adds a word to the dictionary and the language model. The unigram goes in first with the given weight
   * (relative to a uniform distribution over the model's words), because the dictionary call would otherwise
   * add it with weight 1.
   */
  addWord(token: string, phones: string, weight: number): boolean {
    const decoder = this.handle();
    const languageModel = this.api.ps_get_lm(decoder, DEFAULT_SEARCH);
    if (languageModel) this.api.ngram_model_add_word(languageModel, token, weight);
    return this.api.ps_add_word(decoder, token, phones, 1) >= 0;
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
