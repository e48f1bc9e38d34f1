import { LIVE_SAMPLE_RATE } from './live-transcriber';

/**
 * The audio a session's recognition thread has been sent but not yet decoded, and how far decoding falls behind
 * real time. Two different things: a client may send faster than real time and so build up a backlog (bounded
 * by the input buffer) while a decoder that keeps up with real time is not lagging; lag is the decoder being
 * slower than real time while it has work: the time since it last caught up, minus the audio it decoded since
 * then. Times are milliseconds of a monotonic clock (performance.now()).
 */
export class RecognitionBacklog {
  private sent = 0;
  private decoded = 0;
  /** When the thread last had nothing to decode and was then given audio; null while it is caught up. */
  private busySince: number | null = null;
  private decodedAtBusySince = 0;

  /** Samples sent and not yet decoded. */
  get bufferedSamples(): number {
    return this.sent - this.decoded;
  }

  /** Seconds of audio the thread has decoded so far. */
  get decodedSeconds(): number {
    return this.decoded / LIVE_SAMPLE_RATE;
  }

  get bufferedSeconds(): number {
    return this.bufferedSamples / LIVE_SAMPLE_RATE;
  }

  sentAudio(samples: number, now: number): void {
    if (samples <= 0) return;
    if (this.bufferedSamples === 0) {
      this.busySince = now;
      this.decodedAtBusySince = this.decoded;
    }
    this.sent += samples;
  }

  /** The thread reports `total` samples taken so far. */
  decodedUpTo(total: number): void {
    this.decoded = Math.min(total, this.sent);
    if (this.bufferedSamples === 0) this.busySince = null;
  }

  /** Seconds by which decoding has fallen behind real time since it last caught up (0 while caught up). */
  lagSeconds(now: number): number {
    if (this.busySince === null) return 0;
    const decodedSeconds = (this.decoded - this.decodedAtBusySince) / LIVE_SAMPLE_RATE;
    return Math.max(0, (now - this.busySince) / 1000 - decodedSeconds);
  }
}
