import type { EngineSettings } from '../engine-settings';
import type {
  ChunkTiming,
  EngineErrorCode,
  PipelineStage,
  TranscribeRequest,
  TranscribeResult,
} from '../engine.types';

/** Parent → child: the one job this child process runs. */
export interface EngineJobMessage {
  type: 'job';
  request: TranscribeRequest;
  settings: EngineSettings;
}

/** What one job cost the engine child process, reported before its result or error. */
export interface EngineUsage {
  /** Peak resident memory of the engine child (its threads included; ffmpeg is a process of its own). */
  peakRssBytes: number;
  cpuSeconds: number;
}

/** Child → parent. */
export type EngineChildMessage =
  /** Loaded and waiting for its job (sent once, before any job). */
  | { type: 'ready' }
  | { type: 'progress'; percent: number; stage: PipelineStage }
  | { type: 'duration'; seconds: number }
  /** A chunk recognised (its times and place, for the job's trace). */
  | { type: 'chunk'; chunk: ChunkTiming }
  | { type: 'usage'; usage: EngineUsage }
  | { type: 'result'; result: TranscribeResult }
  | { type: 'error'; error: { code: EngineErrorCode; message: string } };

const ERROR_CODES: ReadonlySet<string> = new Set<EngineErrorCode>([
  'NO_SPOKEN_AUDIO',
  'AUDIO_TOO_SHORT',
  'AUDIO_TOO_LONG',
  'DECODE_FAILED',
  'ENGINE_FAILED',
  'ENGINE_TIMEOUT',
  'UNSUPPORTED_LANGUAGE',
]);

export function isEngineErrorCode(value: unknown): value is EngineErrorCode {
  return typeof value === 'string' && ERROR_CODES.has(value);
}

export function isEngineChildMessage(value: unknown): value is EngineChildMessage {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return (
    type === 'ready' ||
    type === 'progress' ||
    type === 'duration' ||
    type === 'chunk' ||
    type === 'usage' ||
    type === 'result' ||
    type === 'error'
  );
}

export function isEngineJobMessage(value: unknown): value is EngineJobMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'job';
}
