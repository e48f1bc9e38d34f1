import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EngineChoice } from '../../engine/registry/engine-descriptor';
import type { SpeakerTurn, TimeSpan } from '../../engine/engine.types';
import type {
  LiveRecognitionSpec,
  LiveRecognitionThreadData,
  LiveReply,
  LiveRequest,
} from './live-recognition-messages';
import type { LiveEvent, LiveSettings } from './live-transcriber';
import type { LiveSessionUsage } from './live-capacity';
import { RecognitionBacklog } from './recognition-backlog';

/** The compiled thread script; from TypeScript (ts-jest) it is the build output in dist/. */
function threadScriptPath(): string {
  if (__filename.endsWith('.ts')) {
    return path.resolve(
      __dirname,
      '..',
      '..',
      '..',
      'dist',
      'realtime',
      'recognition',
      'live-recognition.thread.js',
    );
  }
  return path.join(__dirname, 'live-recognition.thread.js');
}

/**
 * How long a stop may take before the thread is terminated outright: one request's native work (a chunk, an
 * utterance's commit, a diarization) is far shorter.
 */
const STOP_DEADLINE_MS = 30_000;

/** The requests the thread answers, as sent before they are given an id. */
type AnsweredRequest =
  Extract<LiveRequest, { id: number }> extends infer Request
    ? Request extends { id: number }
      ? Omit<Request, 'id'>
      : never
    : never;

export interface LiveRecognitionListener {
  onEvents(events: LiveEvent[]): void;
  onFailure(message: string): void;
}

/**
 * One session's live recognition on its own worker thread (live-recognition.thread.ts). Requests are handled
 * in order; events come back as they happen. `backlog` holds the audio sent but not yet decoded and how far
 * decoding lags behind real time.
 */
export class LiveRecognition {
  private readonly worker: Worker;
  /** Requests waiting for their answer, by id: resolved with the reply (null when the thread is gone). */
  private readonly pending = new Map<number, (reply: LiveReply | null) => void>();
  private nextId = 0;
  readonly backlog = new RecognitionBacklog();
  private stopped = false;
  /** Shared with the thread: slot 0 set to 1 asks it to skip the work still queued (live-recognition.thread). */
  private readonly control = new Int32Array(new SharedArrayBuffer(4));
  private readonly exited: Promise<void>;
  private stopping: Promise<void> | null = null;
  readonly ready: Promise<void>;

  constructor(
    spec: LiveRecognitionSpec,
    private readonly listener: LiveRecognitionListener,
  ) {
    const workerData: LiveRecognitionThreadData = {
      ...spec,
      control: this.control.buffer,
    };
    this.worker = new Worker(threadScriptPath(), { workerData });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    let markReady: () => void = () => undefined;
    let markFailed: (error: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (reply: LiveReply) => {
      switch (reply.type) {
        case 'ready':
          markReady();
          return;
        case 'events':
          this.backlog.decodedUpTo(reply.received);
          if (reply.events.length > 0) this.listener.onEvents(reply.events);
          return;
        case 'done':
          this.backlog.decodedUpTo(reply.received);
          if (reply.events.length > 0) this.listener.onEvents(reply.events);
          this.answer(reply.id, reply);
          return;
        case 'diarized':
          this.answer(reply.id, reply);
          return;
        case 'failed':
          markFailed(new Error(reply.message));
          this.fail(reply.message);
          return;
      }
    });
    this.worker.on('error', (error) => {
      markFailed(error);
      this.fail(error.message);
    });
    this.worker.on('exit', (code) => {
      if (!this.stopped) this.fail(`recognition thread exited with code ${code}`);
      for (const resolve of this.pending.values()) resolve(null);
      this.pending.clear();
    });
  }

  /**
   * The thread's CPU time, the audio it decoded and its lag now (LiveCapacityMeter's reading), or null when the
   * thread has ended or this Node has no per-thread CPU time (Worker#cpuUsage, Node 24).
   */
  async usage(): Promise<LiveSessionUsage | null> {
    // Worker#cpuUsage (Node 24.6) is newer than the installed Node type declarations.
    const thread = this.worker as Worker & { cpuUsage?: () => Promise<NodeJS.CpuUsage> };
    if (this.stopped || typeof thread.cpuUsage !== 'function') return null;
    try {
      const { user, system } = await thread.cpuUsage();
      return {
        cpuSeconds: (user + system) / 1e6,
        decodedAudioSeconds: this.backlog.decodedSeconds,
        lagSeconds: this.backlog.lagSeconds(performance.now()),
      };
    } catch {
      // The thread exited between the check and the reading.
      return null;
    }
  }

  configure(settings: LiveSettings): void {
    this.post({ type: 'configure', settings });
  }

  append(samples: Int16Array): void {
    this.backlog.sentAudio(samples.length, performance.now());
    this.post({ type: 'audio', samples }, [samples.buffer as ArrayBuffer]);
  }

  clear(): void {
    this.post({ type: 'clear' });
  }

  /** Ends the open utterance; resolves once its events were delivered. */
  async commit(): Promise<void> {
    await this.request({ type: 'commit' });
  }

  /** Decodes what was sent and commits what is open; resolves once its events were delivered. */
  async finish(): Promise<void> {
    await this.request({ type: 'finish' });
  }

  /** Who spoke when in the session's stored audio, on this thread (after finish). */
  async diarize(settings: EngineChoice, pcmPath: string, speech: TimeSpan[]): Promise<SpeakerTurn[]> {
    const reply = await this.request({ type: 'diarize', settings, pcmPath, speech });
    if (reply?.type !== 'diarized') throw new Error('the recognition thread stopped before diarization');
    if (!reply.turns) throw new Error(reply.message ?? 'diarization failed');
    return reply.turns;
  }

  /**
   * Ends the thread, skipping the audio still queued. Never `worker.terminate()` first: a thread terminated
   * inside a native call (PocketSphinx, the VAD) aborts the whole process (`Napi::Error`, measured: a delete
   * during decoding took the API down). The thread is asked to stop between two calls, and terminated only if it
   * has not ended after STOP_DEADLINE_MS.
   */
  terminate(): Promise<void> {
    this.stopped = true;
    this.stopping ??= (async () => {
      Atomics.store(this.control, 0, 1);
      this.worker.postMessage({ type: 'stop' } satisfies LiveRequest);
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        this.exited.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STOP_DEADLINE_MS))),
      ]);
      clearTimeout(timer);
      if (!ended) await this.worker.terminate();
    })();
    return this.stopping;
  }

  private request(request: AnsweredRequest): Promise<LiveReply | null> {
    if (this.stopped) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.post({ ...request, id });
    });
  }

  private answer(id: number, reply: LiveReply): void {
    this.pending.get(id)?.(reply);
    this.pending.delete(id);
  }

  private post(request: LiveRequest, transfer: ArrayBuffer[] = []): void {
    if (!this.stopped) this.worker.postMessage(request, transfer);
  }

  private fail(message: string): void {
    if (this.stopped) return;
    this.listener.onFailure(message);
    void this.terminate();
  }
}
