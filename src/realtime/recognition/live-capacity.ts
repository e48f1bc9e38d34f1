import { LIVE_SESSION_CPU_PER_AUDIO_SECOND, liveSessionCapacity } from './live-decoding';

/** One open session's recognition as read now: its thread's CPU time and the audio it decoded, both cumulative. */
export interface LiveSessionUsage {
  cpuSeconds: number;
  decodedAudioSeconds: number;
  /** How far its decoding is behind real time now (RecognitionBacklog.lagSeconds). */
  lagSeconds: number;
}

/** Audio decoded across the sessions in one reading interval below which the interval says too little (one session in real time decodes 2 s per 2 s reading). */
const MIN_AUDIO_SECONDS_PER_READING = 1.5;
/** The weight of one interval's figure in the estimate: about the last ten intervals count. */
const SMOOTHING = 0.2;
/**
 * A session this far behind real time is falling behind: no session is admitted until it catches up. Finals
 * are due within 0.8 s at p95 (issue 36); one second of lag means the sessions already open miss it.
 */
export const ADMISSION_MAX_LAG_SECONDS = 1;

/**
 * How many live sessions this process can serve, from what they cost on the machine it runs on rather than on
 * the machine the default was measured on (issue 36: a 2-core AMD EPYC fell behind with the 4 sessions a 2-core
 * Xeon held). Each reading takes every open session's recognition-thread CPU time and decoded audio; the CPU
 * seconds per audio second of those readings (a smoothed average, starting from the benchmark's figure) give
 * the capacity: the sessions whose cost fits in the share of the cores live sessions may take. A session is also
 * refused while one already open lags more than ADMISSION_MAX_LAG_SECONDS, so a new one is never admitted onto
 * a machine that is already behind. Pure: the gateway reads the sessions and asks; tests feed it readings.
 */
export class LiveCapacityMeter {
  private estimate = LIVE_SESSION_CPU_PER_AUDIO_SECOND;
  private lagging = false;
  /** The previous reading of each session still open, to take differences (a first reading is a baseline: it holds the thread's start-up). */
  private previous = new Map<object, LiveSessionUsage>();

  constructor(private readonly cores: number) {}

  /** CPU seconds one session takes per second of audio, as measured here so far. */
  get cpuPerAudioSecond(): number {
    return this.estimate;
  }

  /** Sessions this process admits: the cost estimate into the live share of the cores, at least 1. */
  get capacity(): number {
    return liveSessionCapacity(this.cores, this.estimate);
  }

  /** Whether a session open at the last reading was behind real time by more than ADMISSION_MAX_LAG_SECONDS. */
  get behind(): boolean {
    return this.lagging;
  }

  /** Takes one reading of every open session, keyed by session. */
  observe(readings: ReadonlyMap<object, LiveSessionUsage>): void {
    let cpu = 0;
    let audio = 0;
    this.lagging = false;
    for (const [session, usage] of readings) {
      if (usage.lagSeconds > ADMISSION_MAX_LAG_SECONDS) this.lagging = true;
      const before = this.previous.get(session);
      if (before) {
        cpu += Math.max(0, usage.cpuSeconds - before.cpuSeconds);
        audio += Math.max(0, usage.decodedAudioSeconds - before.decodedAudioSeconds);
      }
    }
    this.previous = new Map(readings);
    if (audio < MIN_AUDIO_SECONDS_PER_READING) return;
    this.estimate = (1 - SMOOTHING) * this.estimate + SMOOTHING * (cpu / audio);
  }

  /** Whether one more session may open beside `open` ones. */
  admits(open: number): boolean {
    return open < this.capacity && !this.lagging;
  }
}
