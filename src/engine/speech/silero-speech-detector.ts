import { throwIfAborted, yieldToEventLoop } from '../abort.util';
import type { SpeechDetectionSettings } from '../engine-settings';
import type { Pcm, SpeechDetector, TimeSpan } from '../engine.types';
import { createSherpaVad, type SherpaVad } from './sherpa-vad.binding';

const WINDOW_SIZE = 512;
/** Windows between event-loop yields (~10 s of audio), so an abort is seen quickly. */
const WINDOWS_PER_SLICE = 312;

/**
 * Silero VAD through sherpa-onnx. Returns speech spans in file seconds, sorted and non-overlapping.
 * Silence, white noise and (with the default model) music give no spans.
 */
export class SileroSpeechDetector implements SpeechDetector {
  constructor(private readonly settings: SpeechDetectionSettings) {}

  async detect(pcm: Pcm, signal?: AbortSignal): Promise<TimeSpan[]> {
    const vad = createSherpaVad(
      {
        sileroVad: {
          model: this.settings.vadModelPath,
          threshold: this.settings.threshold,
          minSilenceDuration: this.settings.minSilenceSeconds,
          minSpeechDuration: this.settings.minSpeechSeconds,
          windowSize: WINDOW_SIZE,
          maxSpeechDuration: this.settings.maxChunkSeconds,
        },
        sampleRate: pcm.sampleRate,
        numThreads: 1,
        provider: 'cpu',
        debug: false,
      },
      this.settings.maxChunkSeconds * 2 + 10,
    );
    const spans: TimeSpan[] = [];
    const { samples, sampleRate } = pcm;
    let windows = 0;
    for (let start = 0; start < samples.length; start += WINDOW_SIZE) {
      vad.acceptWaveform(samples.subarray(start, Math.min(samples.length, start + WINDOW_SIZE)));
      drain(vad, sampleRate, spans);
      if (++windows % WINDOWS_PER_SLICE === 0) {
        await yieldToEventLoop();
        throwIfAborted(signal);
      }
    }
    vad.flush();
    drain(vad, sampleRate, spans);
    throwIfAborted(signal);
    const duration = samples.length / sampleRate;
    return spans
      .map((span) => ({ start: Math.max(0, span.start), end: Math.min(duration, span.end) }))
      .filter((span) => span.end > span.start)
      .sort((a, b) => a.start - b.start);
  }
}

function drain(vad: SherpaVad, sampleRate: number, into: TimeSpan[]): void {
  while (!vad.isEmpty()) {
    const segment = vad.front(false);
    into.push({
      start: segment.start / sampleRate,
      end: (segment.start + segment.samples.length) / sampleRate,
    });
    vad.pop();
  }
}
