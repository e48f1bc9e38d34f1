import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { abortReason } from '../abort.util';
import { engineDeadlineMs, type EngineSettings } from '../engine-settings';
import {
  EngineError,
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

export interface EngineRunOptions {
  onProgress?: ProgressCallback;
  /** What the job cost the engine child (peak memory, CPU), just before its outcome. */
  onUsage?: (usage: EngineUsage) => void;
  signal?: AbortSignal;
}

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

/**
 * Runs one transcription per child process, so the caller's event loop stays free and a native crash fails
 * the job instead of the worker. Abort and timeout kill the child with SIGKILL.
 */
export class EngineRunner {
  constructor(
    private readonly settings: EngineSettings,
    private readonly childScriptPath: string = defaultChildScriptPath(),
  ) {}

  run(request: TranscribeRequest, options: EngineRunOptions = {}): Promise<TranscribeResult> {
    const { signal, onProgress, onUsage } = options;
    return new Promise<TranscribeResult>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      let child: ChildProcess;
      try {
        child = fork(this.childScriptPath, [], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          execArgv: [],
        });
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
          case 'progress':
            onProgress?.(message.percent, message.stage);
            return;
          case 'duration':
            extendDeadline(message.seconds);
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
    });
  }
}
