import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { defaultEngineSettings } from '../../engine/engine-settings';
import { LiveRecognition } from './live-recognition';

const DIST = join(__dirname, '..', '..', '..', 'dist');

/**
 * Ending a live recognition thread while it decodes (a session deleted, or failed, mid-audio). A worker thread
 * terminated inside a native call aborts the whole process (`terminate called after throwing an instance of
 * 'Napi::Error'`, exit 134): the API process and every session on it.
 */
describe('LiveRecognition.terminate (real thread, PocketSphinx and Silero VAD)', () => {
  const settings = defaultEngineSettings();
  const spec = {
    pocketsphinx: settings.pocketsphinx,
    vadModelPath: settings.speech.vadModelPath,
    live: {
      turnDetection: { threshold: 0.5, silenceMs: 500, prefixPaddingMs: 300 },
      vocabulary: [],
      partialIntervalMs: 300,
      maxUtteranceSeconds: 25,
    },
  };

  /** 100 ms of noise loud enough for the detector to open speech, so the decoder works on it. */
  function noise(): Int16Array {
    const samples = new Int16Array(1600);
    for (let index = 0; index < samples.length; index++) {
      samples[index] = Math.round(Math.sin(index / 3) * 8000 * Math.random());
    }
    return samples;
  }

  it('ends threads with seconds of audio queued without aborting their process (a real node process)', () => {
    // Its own process: an abort must not take Jest with it, and it is how the API runs these threads. Each round
    // stops a thread at another point of its first chunks, where an outright terminate aborted nearly always.
    const script = `
      const { LiveRecognition } = require(${JSON.stringify(join(DIST, 'realtime/recognition/live-recognition.js'))});
      const spec = ${JSON.stringify(spec)};
      const noise = ${noise.toString()};
      (async () => {
        for (const delayMs of [0, 10, 20, 30, 50]) {
          const failures = [];
          const recognition = new LiveRecognition(spec, { onEvents() {}, onFailure: (m) => failures.push(m) });
          await recognition.ready;
          for (let chunk = 0; chunk < 50; chunk++) recognition.append(noise());
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          await recognition.terminate();
          if ((await recognition.finish()) !== undefined || failures.length > 0) process.exit(2);
          console.log('stopped after ' + delayMs + ' ms');
        }
      })();
    `;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 120_000 });
    expect({ status: run.status, signal: run.signal, stderr: run.stderr.trim() }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(run.stdout.trim().split('\n')).toHaveLength(5);
  }, 150_000);

  it('a failure inside the thread is reported once and the thread ends with the queue behind it skipped', async () => {
    const failures: string[] = [];
    let reported: () => void = () => undefined;
    const failed = new Promise<void>((resolve) => (reported = resolve));
    const recognition = new LiveRecognition(spec, {
      onEvents: () => undefined,
      onFailure: (message) => {
        failures.push(message);
        reported();
      },
    });
    await recognition.ready;
    for (let chunk = 0; chunk < 20; chunk++) recognition.append(noise());
    // What a recogniser bug looks like from here: a request the thread throws on, with audio queued behind it.
    (recognition as unknown as { worker: { postMessage(message: unknown): void } }).worker.postMessage({
      type: 'audio',
      samples: null,
    });
    for (let chunk = 0; chunk < 50; chunk++) recognition.append(noise());
    await failed;
    await recognition.terminate();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/null/);
  }, 60_000);

  it('reads its own thread’s CPU time and the audio it decoded (the capacity meter’s reading), none once ended', async () => {
    const recognition = new LiveRecognition(spec, { onEvents: () => undefined, onFailure: () => undefined });
    await recognition.ready;
    const processBefore = process.cpuUsage();
    const atStart = await recognition.usage();
    for (let chunk = 0; chunk < 50; chunk++) recognition.append(noise());
    await recognition.finish();
    // 0.3 s of CPU on this (the main) thread: the process's figure counts it, the recognition thread's must not.
    const mainThread = (process as unknown as { threadCpuUsage(): NodeJS.CpuUsage }).threadCpuUsage;
    const mainSeconds = (): number => {
      const { user, system } = mainThread();
      return (user + system) / 1e6;
    };
    const spinUntil = mainSeconds() + 0.3;
    while (mainSeconds() < spinUntil);
    const afterFiveSeconds = await recognition.usage();
    const processDuring = process.cpuUsage(processBefore);
    await recognition.terminate();
    expect(atStart?.decodedAudioSeconds).toBe(0);
    expect(afterFiveSeconds?.decodedAudioSeconds).toBe(5);
    // The thread decoded 5 s of loud noise: some CPU time of its own, which the process's (every thread's) over the
    // same interval holds together with the main thread's 0.3 s.
    const threadSeconds = afterFiveSeconds!.cpuSeconds - atStart!.cpuSeconds;
    expect(threadSeconds).toBeGreaterThan(0);
    expect(threadSeconds).toBeLessThanOrEqual((processDuring.user + processDuring.system) / 1e6 - 0.3);
    expect(await recognition.usage()).toBeNull();
  }, 60_000);
});
