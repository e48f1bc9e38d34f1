import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { abortReason } from '../abort.util';
import {
  EngineError,
  type RecognitionChunk,
  type RecognitionOptions,
  type RecognitionOutput,
  type Recognizer,
} from '../engine.types';
import type { ChunkReply, ChunkRequest, ThreadedRecognizerSpec } from './recognizer-thread-messages';

/** The compiled thread script; from TypeScript (ts-jest) it is the build output in dist/. */
export function recognizerThreadScriptPath(): string {
  if (__filename.endsWith('.ts')) {
    return path.resolve(
      __dirname,
      '..',
      '..',
      '..',
      'dist',
      'engine',
      'pocketsphinx',
      'recognizer-thread.js',
    );
  }
  return path.join(__dirname, 'recognizer-thread.js');
}

interface Pending {
  resolve: (output: RecognitionOutput) => void;
  reject: (error: Error) => void;
}

interface RecognizerThread {
  worker: Worker;
  /** The chunk it is decoding, if any. */
  busyWith: number | null;
}

/**
 * N copies of an in-process recogniser, each on its own worker thread, so one job's chunks are decoded on
 * every core it is given while the engine's main thread goes on decoding audio and finding speech. Threads
 * start on first use; a chunk waits for a free thread. recognize() may be called concurrently.
 */
export class RecognizerThreadPool implements Recognizer {
  readonly name: string;
  readonly languages: ReadonlySet<string> | 'all';
  private readonly threads: RecognizerThread[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly waiting: Array<{ request: ChunkRequest; transfer: ArrayBuffer }> = [];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly spec: ThreadedRecognizerSpec,
    private readonly size: number,
    identity: Pick<Recognizer, 'name' | 'languages'>,
    private readonly scriptPath: string = recognizerThreadScriptPath(),
  ) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`pool size must be at least 1, got ${size}`);
    this.name = identity.name;
    this.languages = identity.languages;
  }

  recognize(chunk: RecognitionChunk, options: RecognitionOptions): Promise<RecognitionOutput> {
    if (options.signal.aborted) return Promise.reject(abortReason(options.signal));
    if (this.closed) return Promise.reject(new EngineError('ENGINE_FAILED', 'recogniser pool is closed'));
    const id = this.nextId++;
    // The thread gets its own copy of the samples, transferred without a second copy.
    const samples = chunk.samples.slice();
    const request: ChunkRequest = {
      id,
      samples,
      offset: chunk.offset,
      language: options.language,
      vocabulary: options.vocabulary,
    };
    return new Promise<RecognitionOutput>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.waiting.push({ request, transfer: samples.buffer });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const failure = new EngineError('ENGINE_FAILED', 'recogniser pool closed');
    for (const { reject } of this.pending.values()) reject(failure);
    this.pending.clear();
    this.waiting.length = 0;
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
    this.threads.length = 0;
  }

  /** Number of threads started so far (tests and metrics). */
  get threadCount(): number {
    return this.threads.length;
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const thread = this.threads.find((candidate) => candidate.busyWith === null) ?? this.startThread();
      if (!thread) return;
      const next = this.waiting.shift();
      if (!next) return;
      thread.busyWith = next.request.id;
      thread.worker.postMessage(next.request, [next.transfer]);
    }
  }

  private startThread(): RecognizerThread | null {
    if (this.threads.length >= this.size || this.closed) return null;
    const worker = new Worker(this.scriptPath, { workerData: this.spec });
    const thread: RecognizerThread = { worker, busyWith: null };
    worker.on('message', (reply: ChunkReply) => {
      thread.busyWith = null;
      const pending = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (pending) {
        if ('output' in reply) pending.resolve(reply.output);
        else pending.reject(new EngineError(reply.error.code, reply.error.message));
      }
      this.dispatch();
    });
    const fail = (error: Error): void => {
      if (this.closed) return;
      // A thread that died takes its chunk with it; the job fails (the attempt may be retried).
      const lost = thread.busyWith === null ? undefined : this.pending.get(thread.busyWith);
      if (thread.busyWith !== null) this.pending.delete(thread.busyWith);
      lost?.reject(new EngineError('ENGINE_FAILED', `recogniser thread failed: ${error.message}`));
      this.threads.splice(this.threads.indexOf(thread), 1);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
    this.threads.push(thread);
    return thread;
  }
}
