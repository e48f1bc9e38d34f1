import type { RecognizedWord } from '../../engine/engine.types';
import { LIVE_SAMPLE_RATE, type LiveRecognizer } from './live-transcriber';

/** A live recogniser that can re-measure its cepstral mean from the speech it was fed (PocketSphinxRecognizer). */
export interface MeanAdaptableRecognizer extends LiveRecognizer {
  /** Normalise with the mean of the speech fed so far from the end of the open utterance; false if unmeasurable. */
  adoptSpeechMean(minimumFrames: number): boolean;
}

/**
 * How much of a session's first speech is decoded a second time: as much as sphinxbase's running mean takes in
 * before it first shifts its window (300 frames after a set), so the measured mean is exactly that speech's.
 */
export const SPEECH_MEAN_ADAPTATION_SECONDS = 3;
const ADAPTATION_SAMPLES = SPEECH_MEAN_ADAPTATION_SECONDS * LIVE_SAMPLE_RATE;
/** Fewer frames than this say little about the speaker: the seeded mean is kept (0.2 s). */
const MINIMUM_SPEECH_FRAMES = 20;

/**
 * A session's first speech, decoded again with its own cepstral mean. A live decoder starts from a typical
 * mean (LIVE_CEPSTRAL_MEAN) and moves slowly towards the speaker's, so a session's first words are decoded
 * with the wrong normalisation, where a file job uses each chunk's own mean. Once the first utterance holds
 * SPEECH_MEAN_ADAPTATION_SECONDS of audio, or ends sooner, the decoder takes that speech's mean and decodes the
 * utterance again from its start; from then on the decoder's running mean adapts as usual. It costs one
 * second decode of at most those seconds per session (bench/realtime-capacity.ts), paid when the mark is
 * crossed or, for a shorter first utterance, before its final item.
 */
export class SpeechMeanAdaptation implements LiveRecognizer {
  private adapted = false;
  private heard: Int16Array[] = [];
  private heardSamples = 0;
  private vocabulary: readonly string[] = [];

  constructor(private readonly recognizer: MeanAdaptableRecognizer) {}

  startUtterance(vocabulary: readonly string[]): void {
    this.vocabulary = vocabulary;
    this.heard = [];
    this.heardSamples = 0;
    this.recognizer.startUtterance(vocabulary);
  }

  feed(samples: Int16Array): void {
    if (this.adapted) {
      this.recognizer.feed(samples);
      return;
    }
    // Up to the mark exactly: beyond it the running mean shifts its window and no longer holds all of it.
    const upToMark = Math.min(samples.length, ADAPTATION_SAMPLES - this.heardSamples);
    const before = samples.subarray(0, upToMark);
    this.recognizer.feed(before);
    this.heard.push(before.slice());
    this.heardSamples += before.length;
    if (this.heardSamples < ADAPTATION_SAMPLES) return;
    this.decodeAgainWithOwnMean();
    if (upToMark < samples.length) this.recognizer.feed(samples.subarray(upToMark));
  }

  partialText(): string {
    return this.recognizer.partialText();
  }

  endUtterance(offsetSeconds: number): RecognizedWord[] {
    if (!this.adapted) this.decodeAgainWithOwnMean();
    return this.recognizer.endUtterance(offsetSeconds);
  }

  abandonUtterance(): void {
    // Dropped speech is still the speaker's: its mean is taken, without decoding it again.
    if (!this.adapted) this.adoptOnce();
    this.recognizer.abandonUtterance();
  }

  private decodeAgainWithOwnMean(): void {
    const heard = this.heard;
    if (!this.adoptOnce()) return;
    this.recognizer.abandonUtterance();
    this.recognizer.startUtterance(this.vocabulary);
    for (const piece of heard) this.recognizer.feed(piece);
  }

  /** Only the first utterance after the seeding can be measured: ending one moves the running mean. */
  private adoptOnce(): boolean {
    this.adapted = true;
    this.heard = [];
    this.heardSamples = 0;
    return this.recognizer.adoptSpeechMean(MINIMUM_SPEECH_FRAMES);
  }
}
