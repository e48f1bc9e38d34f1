import type { RecognizedWord } from '../../engine/engine.types';
import type { SherpaVad } from '../../engine/speech/sherpa-vad.binding';

/** Live audio is 16 kHz mono PCM16 once converted (realtime-audio-format.ts). */
export const LIVE_SAMPLE_RATE = 16_000;
/** Silero's window at 16 kHz. */
const VAD_WINDOW = 512;
/** How much speech Silero needs before it reports speech: audio before the detection that belongs to it. */
const VAD_MIN_SPEECH_SECONDS = 0.25;

/** The recogniser as live decoding sees it (PocketSphinxRecognizer's live methods). */
export interface LiveRecognizer {
  startUtterance(vocabulary: readonly string[]): void;
  feed(samples: Int16Array): void;
  partialText(): string;
  endUtterance(offsetSeconds: number): RecognizedWord[];
  /** Ends the open utterance, its words unread. */
  abandonUtterance(): void;
}

export interface TurnDetection {
  /** Silero speech probability threshold, 0..1. */
  threshold: number;
  /** Silence that ends an utterance. */
  silenceMs: number;
  /** Audio kept before the detected start of speech. */
  prefixPaddingMs: number;
}

export interface LiveSettings {
  /** Null: the client commits (no server-side turn detection). */
  turnDetection: TurnDetection | null;
  vocabulary: readonly string[];
  /** A partial hypothesis after every this much audio of an open utterance. */
  partialIntervalMs: number;
  /** An utterance this long is committed and a new one begins (bounds the decoder's lattice). */
  maxUtteranceSeconds: number;
}

/** What live decoding reports; times in milliseconds of audio since the session started. */
export type LiveEvent =
  | { kind: 'speech-started'; startMs: number }
  | { kind: 'partial'; text: string }
  | { kind: 'speech-stopped'; endMs: number }
  | { kind: 'utterance'; startMs: number; endMs: number; words: RecognizedWord[] };

export type VadFactory = (turnDetection: TurnDetection) => SherpaVad;

/**
 * Turns a session's audio into utterances: Silero finds where speech starts and stops (or the client commits),
 * PocketSphinx decodes each utterance as its audio arrives, a partial hypothesis is reported at a fixed cadence
 * of audio and the utterance's words when it ends. Keeps no audio beyond the padding before speech.
 */
export class LiveTranscriber {
  private vad: SherpaVad | null = null;
  /** Samples received so far: the session's clock. */
  private position = 0;
  /** Where the open utterance started (samples), or null between utterances. */
  private utteranceStart: number | null = null;
  private fedSinceStart = 0;
  private nextPartialAt = 0;
  /** The most recent audio, for the padding before detected speech. */
  private preroll: Int16Array[] = [];
  private prerollSamples = 0;
  private remainder = new Int16Array(0);

  constructor(
    private readonly recognizer: LiveRecognizer,
    private settings: LiveSettings,
    private readonly createVad: VadFactory,
  ) {}

  get samplesReceived(): number {
    return this.position + this.remainder.length;
  }

  /** New settings apply from the next utterance (turn detection at once, the open utterance is committed). */
  configure(settings: LiveSettings): LiveEvent[] {
    const turnChanged =
      JSON.stringify(settings.turnDetection) !== JSON.stringify(this.settings.turnDetection);
    const events = turnChanged ? this.commit() : [];
    this.settings = settings;
    if (turnChanged) this.vad = null;
    return events;
  }

  accept(samples: Int16Array): LiveEvent[] {
    const events: LiveEvent[] = [];
    if (!this.settings.turnDetection) {
      this.feedManual(samples, events);
      return events;
    }
    const input = concat(this.remainder, samples);
    const whole = input.length - (input.length % VAD_WINDOW);
    for (let start = 0; start < whole; start += VAD_WINDOW) {
      this.acceptWindow(input.subarray(start, start + VAD_WINDOW), this.settings.turnDetection, events);
    }
    this.remainder = input.slice(whole);
    return events;
  }

  /** Ends the open utterance (a client's commit); empty when there is none. */
  commit(): LiveEvent[] {
    const events: LiveEvent[] = [];
    if (this.remainder.length > 0 && this.utteranceStart !== null) {
      this.recognizer.feed(this.remainder);
      this.position += this.remainder.length;
      this.remainder = new Int16Array(0);
    }
    this.endUtterance(events);
    return events;
  }

  /** Drops the open utterance unrecognised (a client's clear); speech goes on being detected afresh. */
  clear(): void {
    if (this.utteranceStart !== null) {
      this.recognizer.abandonUtterance();
      this.utteranceStart = null;
    }
    this.position += this.remainder.length;
    this.remainder = new Int16Array(0);
    this.vad?.reset();
    this.preroll = [];
    this.prerollSamples = 0;
  }

  private feedManual(samples: Int16Array, events: LiveEvent[]): void {
    if (this.utteranceStart === null) this.startUtterance(this.position);
    this.recognizer.feed(samples);
    this.position += samples.length;
    this.afterFeed(samples.length, events);
  }

  private acceptWindow(window: Int16Array, turn: TurnDetection, events: LiveEvent[]): void {
    const vad = (this.vad ??= this.createVad(turn));
    vad.acceptWaveform(toFloat(window));
    this.remember(window, turn);
    this.position += window.length;
    // Finished segments are not needed (the utterance follows isDetected); popping keeps the queue empty.
    while (!vad.isEmpty()) vad.pop();
    if (this.utteranceStart === null) {
      if (!vad.isDetected()) return;
      const start = this.position - this.prerollSamples;
      this.startUtterance(start);
      events.push({ kind: 'speech-started', startMs: toMs(start) });
      for (const piece of this.preroll) this.recognizer.feed(piece);
      this.afterFeed(this.prerollSamples, events);
      return;
    }
    this.recognizer.feed(window);
    if (!vad.isDetected()) {
      events.push({ kind: 'speech-stopped', endMs: toMs(this.position) });
      this.endUtterance(events);
      return;
    }
    this.afterFeed(window.length, events);
  }

  private afterFeed(samples: number, events: LiveEvent[]): void {
    this.fedSinceStart += samples;
    if (this.fedSinceStart >= this.nextPartialAt) {
      events.push({ kind: 'partial', text: this.recognizer.partialText() });
      // On a fixed grid of the utterance's audio: counted from where the last one fired, the interval would
      // grow by up to a VAD window each time.
      const interval = (this.settings.partialIntervalMs * LIVE_SAMPLE_RATE) / 1000;
      while (this.nextPartialAt <= this.fedSinceStart) this.nextPartialAt += interval;
    }
    if (this.fedSinceStart >= this.settings.maxUtteranceSeconds * LIVE_SAMPLE_RATE) {
      this.endUtterance(events);
      if (this.settings.turnDetection) {
        this.startUtterance(this.position);
        events.push({ kind: 'speech-started', startMs: toMs(this.position) });
      }
    }
  }

  private startUtterance(at: number): void {
    this.recognizer.startUtterance(this.settings.vocabulary);
    this.utteranceStart = at;
    this.fedSinceStart = 0;
    this.nextPartialAt = (this.settings.partialIntervalMs * LIVE_SAMPLE_RATE) / 1000;
  }

  private endUtterance(events: LiveEvent[]): void {
    if (this.utteranceStart === null) return;
    const start = this.utteranceStart;
    this.utteranceStart = null;
    const words = this.recognizer.endUtterance(start / LIVE_SAMPLE_RATE);
    events.push({ kind: 'utterance', startMs: toMs(start), endMs: toMs(this.position), words });
    this.preroll = [];
    this.prerollSamples = 0;
  }

  /** Keeps the padding before speech plus what Silero needs to detect it. */
  private remember(window: Int16Array, turn: TurnDetection): void {
    const keep =
      Math.round(((turn.prefixPaddingMs / 1000 + VAD_MIN_SPEECH_SECONDS) * LIVE_SAMPLE_RATE) / VAD_WINDOW) +
      1;
    this.preroll.push(window.slice());
    this.prerollSamples += window.length;
    while (this.preroll.length > keep) this.prerollSamples -= this.preroll.shift()?.length ?? 0;
  }
}

function toMs(samples: number): number {
  return Math.round((samples * 1000) / LIVE_SAMPLE_RATE);
}

function toFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let index = 0; index < samples.length; index++) out[index] = samples[index] / 32768;
  return out;
}

function concat(first: Int16Array, second: Int16Array): Int16Array {
  if (first.length === 0) return second;
  const out = new Int16Array(first.length + second.length);
  out.set(first);
  out.set(second, first.length);
  return out;
}

/**
 * Whether `event` means someone spoke (what keeps a session from being idle). With the server's VAD, every
 * event of an utterance does; with `turn_detection: null` the decoder runs on all audio, so only recognised
 * words count. An utterance without words (a commit of silence) never does.
 */
export function heardSpeech(event: LiveEvent, serverVad: boolean): boolean {
  switch (event.kind) {
    case 'speech-started':
    case 'speech-stopped':
      return true;
    case 'partial':
      return serverVad || event.text.trim() !== '';
    case 'utterance':
      return event.words.length > 0;
  }
}
