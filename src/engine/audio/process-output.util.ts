import { spawn, type SpawnOptions } from 'node:child_process';
import { abortReason } from '../abort.util';

export interface ProcessOutput {
  stdout: Buffer;
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** Thrown when a tool's binary cannot be started at all (missing, not executable). */
export class ProcessStartError extends Error {}

/** Runs a tool to completion, collecting stdout and the tail of stderr; kills it when the signal aborts. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { signal?: AbortSignal; input?: Buffer; spawnOptions?: SpawnOptions } = {},
): Promise<ProcessOutput> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortReason(options.signal));
      return;
    }
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...options.spawnOptions });
    const stdout: Buffer[] = [];
    let stderr = '';
    let aborted = false;
    const onAbort = (): void => {
      aborted = true;
      child.kill('SIGKILL');
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (data: Buffer) => stdout.push(data));
    child.stderr?.on('data', (data: Buffer) => {
      stderr = (stderr + data.toString('utf8')).slice(-8192);
    });
    child.stdin?.on('error', () => undefined);
    child.on('error', (error) => {
      options.signal?.removeEventListener('abort', onAbort);
      reject(new ProcessStartError(`cannot run ${command}: ${error.message}`));
    });
    child.on('close', (exitCode, signal) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (aborted) {
        reject(abortReason(options.signal));
        return;
      }
      resolve({ stdout: Buffer.concat(stdout), stderr, exitCode, signal });
    });
    child.stdin?.end(options.input);
  });
}

/** The last non-empty line of a tool's stderr, for error messages. */
export function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return lines.at(-1) ?? 'no diagnostic output';
}
