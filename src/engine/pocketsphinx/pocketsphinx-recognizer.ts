import { roundSeconds } from '../time.util';
import { roundConfidence } from '../word-confidence';
import { throwIfAborted } from '../abort.util';
import type { PocketSphinxSettings } from '../engine-settings';
import {
  EngineError,
  type RecognitionChunk,
  type RecognitionOptions,
  type RecognitionOutput,
  type RecognizedWord,
  type Recognizer,
} from '../engine.types';
import { FRAMES_PER_SECOND, PocketSphinxDecoder, type DecodedSegment } from './pocketsphinx-decoder';
import { formatSentences } from './sentence-formatter';
import { buildVocabularyEntries, type VocabularyEntry } from './vocabulary-entries';

const ENGLISH = 'en';

/** What the PocketSphinx recogniser is and serves, also for the thread pool that runs it. */
export const POCKETSPHINX_IDENTITY: Pick<Recognizer, 'name' | 'languages'> = {
  name: 'pocketsphinx',
  languages: new Set([ENGLISH]),
};

/** Whether a request's language can be served by an English-only engine; 'auto' reports English. */
export function resolveEnglish(language: string): string {
  const code = language.toLowerCase();
  if (code === 'auto' || code === ENGLISH || code.startsWith(`${ENGLISH}-`)) return ENGLISH;
  throw new EngineError(
    'UNSUPPORTED_LANGUAGE',
    `language '${language}' is not supported by PocketSphinx (English only)`,
  );
}

/** Words PocketSphinx emits that are not speech: sentence marks, silence and noise fillers. */
function isFiller(word: string): boolean {
  return word.startsWith('<') || word.startsWith('[') || word.startsWith('+');
}

/** English recognition with Debian's PocketSphinx (en-us acoustic model, generic LM, CMU dictionary). */
export class PocketSphinxRecognizer implements Recognizer {
  readonly name = POCKETSPHINX_IDENTITY.name;
  readonly languages = POCKETSPHINX_IDENTITY.languages;
  private decoder: PocketSphinxDecoder | null = null;
  private readonly vocabularyByToken = new Map<string, VocabularyEntry>();
  private appliedVocabulary: string | null = null;

  /**
   * `liveCepstralMean`: live sessions start each decoder's cepstral mean from a typical speech mean instead of
   * the model's prior (PocketSphinxDecoder.seedLiveCepstralMean); file jobs normalise each chunk by its own mean.
   */
  constructor(
    private readonly settings: PocketSphinxSettings,
    private readonly liveCepstralMean?: { modelPrior: readonly number[]; speechMean: readonly number[] },
  ) {}

  async recognize(chunk: RecognitionChunk, options: RecognitionOptions): Promise<RecognitionOutput> {
    const language = resolveEnglish(options.language);
    throwIfAborted(options.signal);
    const decoder = this.prepare(options.vocabulary);
    const segments = decoder.decode(toInt16(chunk.samples));
    return { words: this.toWords(segments, chunk.offset), detectedLanguage: language };
  }

  /**
   * Live recognition (realtime sessions): one utterance at a time, fed as the audio arrives. The words of
   * endUtterance are formatted exactly as recognize() formats a chunk's, `offset` seconds into the session.
   */
  startUtterance(vocabulary: readonly string[]): void {
    this.prepare(vocabulary).startUtterance();
  }

  feed(samples: Int16Array): void {
    this.liveDecoder().feed(samples);
  }

  /** The open utterance's words so far, lower case, vocabulary words as the user spelled them. */
  partialText(): string {
    return this.liveDecoder()
      .hypothesis()
      .split(' ')
      .filter((word) => word !== '' && !isFiller(word))
      .flatMap((word) => this.vocabularyByToken.get(word)?.display ?? [word])
      .join(' ');
  }

  endUtterance(offset: number): RecognizedWord[] {
    return this.toWords(this.liveDecoder().endUtterance(), offset);
  }

  /** Ends the open utterance without its words. */
  abandonUtterance(): void {
    this.liveDecoder().abandonUtterance();
  }

  /**
   * From the end of the open utterance on, normalise with the mean of the speech fed since the decoder's mean
   * was seeded (PocketSphinxDecoder.adoptLiveInputMean); false when that could not be measured.
   */
  adoptSpeechMean(minimumFrames: number): boolean {
    return this.liveDecoder().adoptLiveInputMean(minimumFrames);
  }

  private liveDecoder(): PocketSphinxDecoder {
    if (!this.decoder) throw new EngineError('ENGINE_FAILED', 'no utterance was started');
    return this.decoder;
  }

  async close(): Promise<void> {
    this.decoder?.close();
    this.decoder = null;
  }

  /** Custom words are added once per decoder; a different list after custom words needs a fresh decoder. */
  private prepare(vocabulary: readonly string[]): PocketSphinxDecoder {
    const key = JSON.stringify(vocabulary);
    if (this.decoder && key === this.appliedVocabulary) return this.decoder;
    if (this.decoder && this.vocabularyByToken.size > 0) {
      this.decoder.close();
      this.decoder = null;
      this.vocabularyByToken.clear();
    }
    const decoder = (this.decoder ??= this.createDecoder());
    const entries = buildVocabularyEntries(vocabulary, (word) => decoder.lookup(word));
    const added = new Set(decoder.addWords(entries, this.settings.vocabularyWeight));
    for (const entry of entries) if (added.has(entry.token)) this.vocabularyByToken.set(entry.token, entry);
    this.appliedVocabulary = key;
    return decoder;
  }

  private createDecoder(): PocketSphinxDecoder {
    const decoder = new PocketSphinxDecoder(this.settings);
    if (this.liveCepstralMean) {
      decoder.seedLiveCepstralMean(this.liveCepstralMean.modelPrior, this.liveCepstralMean.speechMean);
    }
    return decoder;
  }

  /** The chunk's words with their times, as sentences (sentence-formatter.ts). */
  private toWords(segments: DecodedSegment[], offset: number): RecognizedWord[] {
    const words: RecognizedWord[] = [];
    const fromVocabulary = new Set<RecognizedWord>();
    for (const segment of segments) {
      const base = segment.word.replace(/\(\d+\)$/, '');
      if (isFiller(base)) continue;
      const start = offset + segment.startFrame / FRAMES_PER_SECOND;
      // The end frame is inclusive.
      const end = offset + (segment.endFrame + 1) / FRAMES_PER_SECOND;
      const entry = this.vocabularyByToken.get(base);
      if (!entry) {
        words.push({
          word: base,
          start: roundSeconds(start),
          end: roundSeconds(end),
          confidence: roundConfidence(segment.posterior),
        });
        continue;
      }
      for (const word of spread(entry.display, start, end, roundConfidence(segment.posterior))) {
        fromVocabulary.add(word);
        words.push(word);
      }
    }
    return formatSentences(words, fromVocabulary);
  }
}

/** Shares a phrase's time span among its words in proportion to their length. */
function spread(
  display: readonly string[],
  start: number,
  end: number,
  confidence: number,
): RecognizedWord[] {
  const total = display.reduce((sum, word) => sum + word.length, 0);
  let cursor = start;
  return display.map((word) => {
    const wordEnd = cursor + ((end - start) * word.length) / total;
    const result = { word, start: roundSeconds(cursor), end: roundSeconds(wordEnd), confidence };
    cursor = wordEnd;
    return result;
  });
}

function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let index = 0; index < samples.length; index++) {
    const value = Math.max(-1, Math.min(1, samples[index]));
    out[index] = Math.round(value * 32767);
  }
  return out;
}
