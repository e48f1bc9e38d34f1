import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { abortReason } from '../abort.util';
import { engineDeadlineMs, type EngineSettings } from '../engine-settings';
import {
  EngineError,
  type ChunkTiming,
  type ProgressCallback,
  type TranscribeRequest,
  type TranscribeResult,
} from '../engine.types';
import {
  isEngineChildMessage,
  isEngineErrorCode,
  type EngineJobMessage,
  type EngineUsage,
} from './engine-messages';

/**
 * The compiled child script. From compiled code it sits next to this file; from TypeScript (ts-jest) it is the
 * build output in dist/, so `npm run build` must have run.
 */
export function defaultChildScriptPath(): string {
  if (__filename.endsWith('.ts')) {
    return path.resolve(__dirname, '..', '..', '..', 'dist', 'engine', 'runner', 'engine-child.js');
  }
  return path.join(__dirname, 'engine-child.js');
}

/** What a job learns about the child process that runs it. */
export interface EngineChildInfo {
  pid: number;
  /** True when the child was started and loaded before the job arrived (a warm child). */
  warm: boolean;
}

export interface EngineRunOptions {
  onProgress?: ProgressCallback;
  /** Each chunk the child has recognised (its times; the worker makes a span of it). */
  onChunk?: (chunk: ChunkTiming) => void;
  /** What the job cost the engine child (peak memory, CPU), just before its outcome. */
  onUsage?: (usage: EngineUsage) => void;
  /** The child the job runs in, as soon as it has been handed the job. */
  onChild?: (child: EngineChildInfo) => void;
  signal?: AbortSignal;
}

/** A child started ahead of a job; `ready` once it has loaded its modules and said so. */
interface SpareChild {
  process: ChildProcess;
  ready: boolean;
  /** Removes the listeners it has while it waits, when a job takes it. */
  release(): void;
}

/**
 * Runs one transcription per child process, so the caller's event loop stays free and a native crash fails
 * the job instead of the worker. Abort and timeout kill the child with SIGKILL.
 *
 * With `keepWarm(slots)` (the worker calls it with its concurrency) it keeps that many children started and
 * loaded before any job arrives: a job takes a waiting child, and its replacement starts at once, so it loads
 * while the job runs. Each child still runs one job and exits, so a crash still fails one job only.
 */
export class EngineRunner {
  private readonly spares: SpareChild[] = [];
  private warmSlots = 0;

  constructor(
    private readonly settings: EngineSettings,
    private readonly childScriptPath: string = defaultChildScriptPath(),
  ) {}

  /** Keeps `slots` children started and loaded ahead of jobs (0: fork on demand, as in the API role). */
  keepWarm(slots: number): void {
    this.warmSlots = slots;
    this.refill();
  }

  /** Ends the waiting children and starts no more (shutdown); running jobs are not touched. */
  stopWarm(): void {
    this.warmSlots = 0;
    for (const spare of this.spares.splice(0)) spare.process.kill('SIGKILL');
  }

  /** Pids of the children that are loaded and waiting for a job. */
  readyChildren(): number[] {
    return this.spares.filter((spare) => spare.ready).map((spare) => spare.process.pid ?? -1);
  }

  private refill(): void {
    while (this.spares.length < this.warmSlots) {
      let child: ChildProcess;
      try {
        child = this.fork();
      } catch {
        return; // A fork that fails now is tried again, and reported, when a job needs a child.
      }
      const onMessage = (message: unknown): void => {
        if (isEngineChildMessage(message) && message.type === 'ready') spare.ready = true;
      };
      // One that dies while waiting is dropped; the next job forks its own and refills (no restart loop).
      const onExit = (): void => {
        const index = this.spares.indexOf(spare);
        if (index >= 0) this.spares.splice(index, 1);
      };
      const onError = (): void => undefined;
      const spare: SpareChild = {
        process: child,
        ready: false,
        release: () => {
          child.off('message', onMessage);
          child.off('exit', onExit);
          child.off('error', onError);
        },
      };
      // A waiting child must not keep this process alive (its IPC channel would), nor outlive it (it exits on
      // disconnect).
      child.unref();
      child.channel?.unref();
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.on('error', onError);
      this.spares.push(spare);
    }
  }

  private fork(): ChildProcess {
    return fork(this.childScriptPath, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [],
      // The child's process environment (glibc reads it at start), not the service's configuration.
      // eslint-disable-next-line no-restricted-properties -- what the child inherits, plus MALLOC_ARENA_MAX
      env: engineChildEnvironment(process.env),
    });
  }

  /** A waiting child if one is alive (loaded or still loading), else a new one; then the spares are refilled. */
  private takeChild(): { child: ChildProcess; warm: boolean } {
    let taken: SpareChild | undefined;
    while (!taken && this.spares.length > 0) {
      const spare = this.spares.shift() as SpareChild;
      if (spare.process.exitCode === null && spare.process.signalCode === null && spare.process.connected) {
        taken = spare;
      }
    }
    const child = taken?.process ?? this.fork();
    child.ref();
    child.channel?.ref();
    taken?.release();
    this.refill();
    return { child, warm: taken?.ready ?? false };
  }

  run(request: TranscribeRequest, options: EngineRunOptions = {}): Promise<TranscribeResult> {
    const { signal, onProgress, onChunk, onUsage, onChild } = options;
    return new Promise<TranscribeResult>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      let child: ChildProcess;
      let warm: boolean;
      try {
        ({ child, warm } = this.takeChild());
      } catch (error) {
        reject(
          new EngineError('ENGINE_FAILED', `cannot start the engine process: ${(error as Error).message}`),
        );
        return;
      }
      let settled = false;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const kill = (): void => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      };
      const onAbort = (): void => {
        kill();
        settle(() => reject(abortReason(signal)));
      };
      // The deadline grows with the audio once the child reports how long it is.
      const startedAt = Date.now();
      let deadlineMs = engineDeadlineMs(this.settings.timeout, null);
      const onDeadline = (): void => {
        kill();
        settle(() =>
          reject(new EngineError('ENGINE_TIMEOUT', `transcription took longer than ${deadlineMs} ms`)),
        );
      };
      let timer = setTimeout(onDeadline, deadlineMs);
      const extendDeadline = (audioSeconds: number): void => {
        deadlineMs = Math.max(deadlineMs, engineDeadlineMs(this.settings.timeout, audioSeconds));
        clearTimeout(timer);
        timer = setTimeout(onDeadline, Math.max(0, startedAt + deadlineMs - Date.now()));
      };
      signal?.addEventListener('abort', onAbort, { once: true });

      child.on('message', (message: unknown) => {
        if (!isEngineChildMessage(message) || settled) return;
        switch (message.type) {
          case 'ready':
            return;
          case 'progress':
            onProgress?.(message.percent, message.stage);
            return;
          case 'duration':
            extendDeadline(message.seconds);
            return;
          case 'chunk':
            onChunk?.(message.chunk);
            return;
          case 'usage':
            onUsage?.(message.usage);
            return;
          case 'result':
            settle(() => resolve(message.result));
            return;
          case 'error': {
            const code = isEngineErrorCode(message.error.code) ? message.error.code : 'ENGINE_FAILED';
            settle(() => reject(new EngineError(code, message.error.message)));
            return;
          }
        }
      });
      child.on('error', (error) => {
        kill();
        settle(() => reject(new EngineError('ENGINE_FAILED', `engine process failed: ${error.message}`)));
      });
      child.on('exit', (code, exitSignal) => {
        const how = exitSignal ? `signal ${exitSignal}` : `code ${code ?? 'unknown'}`;
        settle(() =>
          reject(new EngineError('ENGINE_FAILED', `engine process exited with ${how} before a result`)),
        );
      });
      const job: EngineJobMessage = { type: 'job', request, settings: this.settings };
      child.send(job);
      onChild?.({ pid: child.pid ?? -1, warm });
    });
  }
}

/**
 * glibc's malloc arenas an engine child may make. Each thread that allocates (a decoder thread, libuv's pool) may
 * get an arena of its own, up to eight per core, and freed native memory stays in the arena that held it, so a
 * child decoding on several threads keeps more than it uses. Two arenas hold the child ~25 MB lower at the
 * 5-minute file's peak at the same speed (docs/decisions.md, "Engine child's malloc arenas"). An operator's
 * MALLOC_ARENA_MAX is kept as set.
 */
export const ENGINE_CHILD_MALLOC_ARENAS = '2';

export function engineChildEnvironment(parent: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return parent.MALLOC_ARENA_MAX === undefined
    ? { ...parent, MALLOC_ARENA_MAX: ENGINE_CHILD_MALLOC_ARENAS }
    : parent;
}
