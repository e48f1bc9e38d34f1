/**
 * Test support for the Whisper engines (used by *.spec.ts only): finds the built whisper.cpp binaries,
 * decodes clips with ffmpeg and runs a real whisper-server on a free loopback port.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import {
  defaultWhisperCppBinDir,
  whisperCliPath,
  whisperServerPath,
} from '../../../src/engine/whisper-cpp/whisper-cpp.settings';
import { freeLoopbackPort } from '../../../src/engine/whisper-cpp/whisper-server.process';

export const REPO_ROOT = path.resolve(__dirname, '../../..');

/**
 * The folder with whisper-cli and whisper-server. Missing binaries fail the test run loudly: CI builds them
 * first, and a silent skip would hide a broken engine.
 */
export function requireWhisperCppBinDir(override: string | undefined): string {
  const binDir = override && override !== '' ? override : defaultWhisperCppBinDir(REPO_ROOT);
  const missing = [whisperCliPath(binDir), whisperServerPath(binDir)].filter((p) => !existsSync(p));
  if (missing.length > 0) {
    throw new Error(
      `whisper.cpp binaries missing (${missing.join(', ')}): run scripts/build-whisper-cpp.sh ` +
        '(or point WHISPER_CPP_BIN_DIR at a folder with whisper-cli and whisper-server)',
    );
  }
  return binDir;
}

/** Any ffmpeg-readable file → 16 kHz mono float samples. */
export function decodeClip(file: string): Promise<Float32Array> {
  return new Promise((resolve, reject) => {
    const ffmpeg = spawn(
      'ffmpeg',
      ['-nostdin', '-v', 'error', '-i', file, '-ac', '1', '-ar', '16000', '-f', 'f32le', '-'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const out: Buffer[] = [];
    let err = '';
    ffmpeg.stdout.on('data', (b: Buffer) => out.push(b));
    ffmpeg.stderr.on('data', (b: Buffer) => (err += b.toString()));
    ffmpeg.on('error', reject);
    ffmpeg.on('close', (code) => {
      if (code !== 0) return reject(new Error(`ffmpeg failed on ${file}: ${err}`));
      const bytes = Buffer.concat(out);
      // Copy into an aligned buffer: Buffer.concat may return a slice of a shared pool.
      const samples = new Float32Array(bytes.length / 4);
      new Uint8Array(samples.buffer).set(bytes);
      resolve(samples);
    });
  });
}

/** Deterministic white noise (no speech), for runs whose length matters more than their content. */
export function whiteNoise(seconds: number, amplitude = 0.3, seed = 1): Float32Array {
  const samples = new Float32Array(Math.round(seconds * 16000));
  let state = seed >>> 0;
  for (let i = 0; i < samples.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0; // LCG: repeatable across runs
    samples[i] = (state / 0x100000000 - 0.5) * 2 * amplitude;
  }
  return samples;
}

export { freeLoopbackPort };

export interface RunningWhisperServer {
  baseUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts whisper-server on a free loopback port and waits until it answers. The port is picked just before
 * the start, so another process could take it in between: retried a few times.
 */
export async function startWhisperServer(
  binDir: string,
  args: readonly string[],
): Promise<RunningWhisperServer> {
  let lastError: Error = new Error('whisper-server did not start');
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freeLoopbackPort();
    try {
      return await startOnPort(binDir, port, args);
    } catch (err) {
      lastError = err as Error;
    }
  }
  throw lastError;
}

async function startOnPort(
  binDir: string,
  port: number,
  args: readonly string[],
): Promise<RunningWhisperServer> {
  const child = spawn(whisperServerPath(binDir), ['--host', '127.0.0.1', '--port', String(port), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-8000)));
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exitedPromise.then(() => (exited = true));
  const stop = async (): Promise<void> => {
    if (!exited) child.kill('SIGKILL');
    await exitedPromise;
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`whisper-server exited during start: ${log}`);
    try {
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return { baseUrl, process: child, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`whisper-server did not answer on ${baseUrl} within 30 s: ${log}`);
}
