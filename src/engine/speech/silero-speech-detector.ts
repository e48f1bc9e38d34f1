import { throwIfAborted, yieldToEventLoop } from '../abort.util';
import type { SpeechDetectionSettings } from '../engine-settings';
import type { Pcm, SpeechDetection, SpeechDetector, TimeSpan } from '../engine.types';
import { SAMPLE_RATE } from '../audio/ffmpeg-decoder';
import { createSherpaVad, type SherpaVad } from './sherpa-vad.binding';

const WINDOW_SIZE = 512;
/** Blocks of this many samples (~10 s) between event-loop yields in detect(), so an abort is seen quickly. */
const DETECT_BLOCK = WINDOW_SIZE * 312;

/**
 * Silero VAD through sherpa-onnx. Spans are in file seconds, sorted and non-overlapping. Silence, white noise
 * and (with the default model) music give no spans. The detection is a stream: it keeps no audio but the
 * speech segment it is inside (at most maxChunkSeconds), whatever the file's length.
 */
export class SileroSpeechDetector implements SpeechDetector {
  constructor(private readonly settings: SpeechDetectionSettings) {}

  open(): SpeechDetection {
    return new SileroSpeechDetection(this.settings);
  }

  /** The whole file at once: for tools and tests on short clips. */
  async detect(pcm: Pcm, signal?: AbortSignal): Promise<TimeSpan[]> {
    const detection = this.open();
    const spans: TimeSpan[] = [];
    for (let start = 0; start < pcm.samples.length; start += DETECT_BLOCK) {
      spans.push(...detection.accept(pcm.samples.subarray(start, start + DETECT_BLOCK)));
      await yieldToEventLoop();
      throwIfAborted(signal);
    }
    spans.push(...detection.finish());
    return spans;
  }
}

class SileroSpeechDetection implements SpeechDetection {
  private readonly vad: SherpaVad;
  /** Samples fed to the VAD so far (whole windows only). */
  private fed = 0;
  /** The tail of the last block that did not fill a window. */
  private remainder = new Float32Array(0);
  private finished = false;

  constructor(private readonly settings: SpeechDetectionSettings) {
    this.vad = createSherpaVad(
      {
        sileroVad: {
          model: settings.vadModelPath,
          threshold: settings.threshold,
          minSilenceDuration: settings.minSilenceSeconds,
          minSpeechDuration: settings.minSpeechSeconds,
          windowSize: WINDOW_SIZE,
          maxSpeechDuration: settings.maxChunkSeconds,
        },
        sampleRate: SAMPLE_RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: false,
      },
      settings.maxChunkSeconds * 2 + 10,
    );
  }

  accept(samples: Float32Array): TimeSpan[] {
    if (this.finished) throw new Error('speech detection already finished');
    let input = samples;
    if (this.remainder.length > 0) {
      input = new Float32Array(this.remainder.length + samples.length);
      input.set(this.remainder);
      input.set(samples, this.remainder.length);
    }
    const whole = input.length - (input.length % WINDOW_SIZE);
    const spans: TimeSpan[] = [];
    for (let start = 0; start < whole; start += WINDOW_SIZE) {
      this.vad.acceptWaveform(input.subarray(start, start + WINDOW_SIZE));
      this.drain(spans);
    }
    this.fed += whole;
    this.remainder = input.slice(whole);
    return spans;
  }

  finish(): TimeSpan[] {
    this.finished = true;
    const spans: TimeSpan[] = [];
    if (this.remainder.length > 0) {
      this.vad.acceptWaveform(this.remainder);
      this.fed += this.remainder.length;
      this.remainder = new Float32Array(0);
    }
    this.vad.flush();
    this.drain(spans);
    return spans;
  }

  private drain(into: TimeSpan[]): void {
    while (!this.vad.isEmpty()) {
      const segment = this.vad.front(false);
      const start = Math.max(0, segment.start / SAMPLE_RATE);
      const end = (segment.start + segment.samples.length) / SAMPLE_RATE;
      this.vad.pop();
      if (end > start) into.push({ start, end });
    }
  }
}
