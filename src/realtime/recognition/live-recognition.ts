import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LiveRecognitionSpec, LiveReply, LiveRequest } from './live-recognition-messages';
import type { LiveEvent, LiveSettings } from './live-transcriber';

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

export interface LiveRecognitionListener {
  onEvents(events: LiveEvent[]): void;
  onFailure(message: string): void;
}

/**
 * One session's live recognition on its own worker thread (live-recognition.thread.ts). Requests are handled
 * in order; events come back as they happen. `lagSamples` is the audio sent but not yet decoded.
 */
export class LiveRecognition {
  private readonly worker: Worker;
  private readonly pending = new Map<number, () => void>();
  private nextId = 0;
  private sent = 0;
  private received = 0;
  private stopped = false;
  readonly ready: Promise<void>;

  constructor(
    spec: LiveRecognitionSpec,
    private readonly listener: LiveRecognitionListener,
  ) {
    this.worker = new Worker(threadScriptPath(), { workerData: spec });
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
          this.received = reply.received;
          if (reply.events.length > 0) this.listener.onEvents(reply.events);
          return;
        case 'done':
          this.received = reply.received;
          if (reply.events.length > 0) this.listener.onEvents(reply.events);
          this.pending.get(reply.id)?.();
          this.pending.delete(reply.id);
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
      for (const resolve of this.pending.values()) resolve();
      this.pending.clear();
    });
  }

  /** Audio sent to the thread and not yet decoded, in samples. */
  get lagSamples(): number {
    return this.sent - this.received;
  }

  configure(settings: LiveSettings): void {
    this.post({ type: 'configure', settings });
  }

  append(samples: Int16Array): void {
    this.sent += samples.length;
    this.post({ type: 'audio', samples }, [samples.buffer as ArrayBuffer]);
  }

  clear(): void {
    this.post({ type: 'clear' });
  }

  /** Ends the open utterance; resolves once its events were delivered. */
  commit(): Promise<void> {
    return this.request('commit');
  }

  /** Commits what is open and stops the thread. */
  async finish(): Promise<void> {
    if (this.stopped) return;
    await this.request('finish');
    await this.terminate();
  }

  async terminate(): Promise<void> {
    this.stopped = true;
    await this.worker.terminate();
  }

  private request(type: 'commit' | 'finish'): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const id = this.nextId++;
    return new Promise<void>((resolve) => {
      this.pending.set(id, resolve);
      this.post({ type, id });
    });
  }

  private post(request: LiveRequest, transfer: ArrayBuffer[] = []): void {
    if (!this.stopped) this.worker.postMessage(request, transfer);
  }

  private fail(message: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.listener.onFailure(message);
    void this.worker.terminate();
  }
}
