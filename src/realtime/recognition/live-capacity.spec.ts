import { ADMISSION_MAX_LAG_SECONDS, LiveCapacityMeter, type LiveSessionUsage } from './live-capacity';
import { LIVE_SESSION_CPU_PER_AUDIO_SECOND, liveSessionCapacity } from './live-decoding';

const usage = (cpuSeconds: number, decodedAudioSeconds: number, lagSeconds = 0): LiveSessionUsage => ({
  cpuSeconds,
  decodedAudioSeconds,
  lagSeconds,
});

/** Feeds `intervals` readings of `sessions` sessions each decoding 2 s of audio per interval at `cost` CPU s per audio s. */
function run(meter: LiveCapacityMeter, sessions: object[], cost: number, intervals: number): void {
  for (let interval = 0; interval <= intervals; interval += 1) {
    // Each thread starts with 3 CPU s of model loading that decoded no audio: a first reading is only a baseline.
    meter.observe(new Map(sessions.map((session) => [session, usage(3 + cost * 2 * interval, 2 * interval)])));
  }
}

describe('LiveCapacityMeter', () => {
  it('starts from the benchmark machine’s cost: the default capacity', () => {
    const meter = new LiveCapacityMeter(2);
    expect(meter.cpuPerAudioSecond).toBe(LIVE_SESSION_CPU_PER_AUDIO_SECOND);
    expect(meter.capacity).toBe(liveSessionCapacity(2));
    expect(meter.admits(liveSessionCapacity(2) - 1)).toBe(true);
    expect(meter.admits(liveSessionCapacity(2))).toBe(false);
  });

  it('lowers the capacity on a machine where sessions cost more (the EPYC of issue 36), raises it where less', () => {
    const slower = new LiveCapacityMeter(2);
    run(slower, [{}, {}, {}], 0.5, 30);
    expect(slower.cpuPerAudioSecond).toBeCloseTo(0.5, 2);
    expect(slower.capacity).toBe(2);
    expect(slower.admits(2)).toBe(false);

    const faster = new LiveCapacityMeter(2);
    run(faster, [{}, {}, {}], 0.12, 30);
    expect(faster.capacity).toBe(8);
  });

  it('does not count a thread’s start-up, nor learn from readings with too little audio', () => {
    const meter = new LiveCapacityMeter(2);
    const session = {};
    meter.observe(new Map([[session, usage(30, 0)]]));
    meter.observe(new Map([[session, usage(31, 1)]]));
    expect(meter.cpuPerAudioSecond).toBe(LIVE_SESSION_CPU_PER_AUDIO_SECOND);
  });

  it('admits nobody while an open session is behind real time, and again once it caught up', () => {
    const meter = new LiveCapacityMeter(8);
    const session = {};
    meter.observe(new Map([[session, usage(1, 10, ADMISSION_MAX_LAG_SECONDS + 0.5)]]));
    expect(meter.behind).toBe(true);
    expect(meter.admits(1)).toBe(false);
    meter.observe(new Map([[session, usage(2, 12, 0)]]));
    expect(meter.admits(1)).toBe(true);
  });

  it('forgets sessions that ended: a new one with the same cumulative figures is a baseline again', () => {
    const meter = new LiveCapacityMeter(2);
    const first = {};
    meter.observe(new Map([[first, usage(1, 10)]]));
    meter.observe(new Map());
    meter.observe(new Map([[first, usage(100, 20)]]));
    expect(meter.cpuPerAudioSecond).toBe(LIVE_SESSION_CPU_PER_AUDIO_SECOND);
  });
});
