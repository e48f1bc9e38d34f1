import { LIVE_SAMPLE_RATE } from './live-transcriber';
import { RecognitionBacklog } from './recognition-backlog';

const seconds = (value: number) => value * LIVE_SAMPLE_RATE;

describe('RecognitionBacklog', () => {
  it('counts audio sent and not yet decoded', () => {
    const backlog = new RecognitionBacklog();
    backlog.sentAudio(seconds(1), 0);
    backlog.sentAudio(seconds(2), 10);
    expect(backlog.bufferedSeconds).toBe(3);
    backlog.decodedUpTo(seconds(1.5));
    expect(backlog.bufferedSeconds).toBe(1.5);
    backlog.decodedUpTo(seconds(3));
    expect(backlog.bufferedSamples).toBe(0);
  });

  it('a client ahead of real time builds a backlog without lag while decoding is faster than real time', () => {
    const backlog = new RecognitionBacklog();
    backlog.sentAudio(seconds(20), 0); // 20 s sent at once
    backlog.decodedUpTo(seconds(10)); // decoded at twice real time
    expect(backlog.lagSeconds(5_000)).toBe(0);
    expect(backlog.bufferedSeconds).toBe(10);
  });

  it('lag is the wall time since decoding last caught up minus the audio decoded since', () => {
    const backlog = new RecognitionBacklog();
    // Real-time appends of 1 s, decoded at 0.8 × real time.
    for (let second = 0; second < 10; second++) backlog.sentAudio(seconds(1), second * 1000);
    backlog.decodedUpTo(seconds(8));
    expect(backlog.lagSeconds(10_000)).toBeCloseTo(2);
    expect(backlog.lagSeconds(12_000)).toBeCloseTo(4);
  });

  it('starts afresh once decoding has caught up', () => {
    const backlog = new RecognitionBacklog();
    backlog.sentAudio(seconds(1), 0);
    backlog.decodedUpTo(seconds(1));
    expect(backlog.lagSeconds(60_000)).toBe(0);
    backlog.sentAudio(seconds(1), 60_000);
    expect(backlog.lagSeconds(60_500)).toBeCloseTo(0.5);
    backlog.decodedUpTo(seconds(1.5));
    expect(backlog.lagSeconds(61_000)).toBeCloseTo(0.5);
  });
});
