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

/**
 * Blocks whose every sample is within ±3 LSB of zero are digital silence: no VAD call can find speech there.
 * They skip the model entirely, so hours of silence (a decompression bomb, a muted recording) cost only their
 * decoding. The VAD restarts at the next sound, its positions offset to file time.
 */
const DIGITAL_SILENCE_PEAK = 3 / 32768;

class SileroSpeechDetection implements SpeechDetection {
  /** The running VAD, or null inside digital silence. */
  private vad: SherpaVad | null = null;
  /** File position (samples) where the running VAD started. */
  private vadStart = 0;
  /** Samples consumed so far (fed to the VAD or skipped as silence), not counting the remainder. */
  private consumed = 0;
  /** The tail of the last block that did not fill a window. */
  private remainder = new Float32Array(0);
  private finished = false;

  constructor(private readonly settings: SpeechDetectionSettings) {}

  accept(samples: Float32Array): TimeSpan[] {
    if (this.finished) throw new Error('speech detection already finished');
    if (samples.length >= WINDOW_SIZE && isDigitalSilence(samples)) {
      const spans = this.stopVad();
      this.consumed += samples.length;
      return spans;
    }
    let input = samples;
    if (this.remainder.length > 0) {
      input = new Float32Array(this.remainder.length + samples.length);
      input.set(this.remainder);
      input.set(samples, this.remainder.length);
    }
    const vad = this.runningVad();
    const whole = input.length - (input.length % WINDOW_SIZE);
    const spans: TimeSpan[] = [];
    for (let start = 0; start < whole; start += WINDOW_SIZE) {
      vad.acceptWaveform(input.subarray(start, start + WINDOW_SIZE));
      this.drain(vad, spans);
    }
    this.consumed += whole;
    this.remainder = input.slice(whole);
    return spans;
  }

  finish(): TimeSpan[] {
    this.finished = true;
    return this.stopVad();
  }

  /** Ends the running VAD (its last partial window included) and returns the spans it still held. */
  private stopVad(): TimeSpan[] {
    const spans: TimeSpan[] = [];
    const vad = this.vad;
    if (!vad) {
      this.consumed += this.remainder.length;
      this.remainder = new Float32Array(0);
      return spans;
    }
    if (this.remainder.length > 0) {
      vad.acceptWaveform(this.remainder);
      this.consumed += this.remainder.length;
      this.remainder = new Float32Array(0);
    }
    vad.flush();
    this.drain(vad, spans);
    this.vad = null;
    return spans;
  }

  private runningVad(): SherpaVad {
    if (this.vad) return this.vad;
    this.vadStart = this.consumed;
    this.vad = createSherpaVad(
      {
        sileroVad: {
          model: this.settings.vadModelPath,
          threshold: this.settings.threshold,
          minSilenceDuration: this.settings.minSilenceSeconds,
          minSpeechDuration: this.settings.minSpeechSeconds,
          windowSize: WINDOW_SIZE,
          maxSpeechDuration: this.settings.maxChunkSeconds,
        },
        sampleRate: SAMPLE_RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: false,
      },
      this.settings.maxChunkSeconds * 2 + 10,
    );
    return this.vad;
  }

  private drain(vad: SherpaVad, into: TimeSpan[]): void {
    while (!vad.isEmpty()) {
      const segment = vad.front(false);
      const start = Math.max(0, (this.vadStart + segment.start) / SAMPLE_RATE);
      const end = (this.vadStart + segment.start + segment.samples.length) / SAMPLE_RATE;
      vad.pop();
      if (end > start) into.push({ start, end });
    }
  }
}

function isDigitalSilence(samples: Float32Array): boolean {
  for (let index = 0; index < samples.length; index++) {
    const value = samples[index];
    if (value > DIGITAL_SILENCE_PEAK || value < -DIGITAL_SILENCE_PEAK) return false;
  }
  return true;
}
