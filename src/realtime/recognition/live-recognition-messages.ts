import type { EngineChoice } from '../../engine/registry/engine-descriptor';
import type { PocketSphinxSettings } from '../../engine/engine-settings';
import type { SpeakerTurn, TimeSpan } from '../../engine/engine.types';
import type { LiveEvent, LiveSettings } from './live-transcriber';

/** What a live recognition thread is started with. */
export interface LiveRecognitionSpec {
  pocketsphinx: PocketSphinxSettings;
  vadModelPath: string;
  live: LiveSettings;
}

/**
 * The thread's workerData: the spec and a shared stop flag (`Int32Array` slot 0, set to 1 by the owner), which
 * the thread reads before each request so that, once asked to stop, it skips the work still queued.
 */
export interface LiveRecognitionThreadData extends LiveRecognitionSpec {
  control: SharedArrayBuffer;
}

/** Main thread → live recognition thread, handled in order. */
export type LiveRequest =
  | { type: 'configure'; settings: LiveSettings }
  | { type: 'audio'; samples: Int16Array }
  | { type: 'commit'; id: number }
  | { type: 'clear' }
  | { type: 'finish'; id: number }
  /** After the last utterance: who spoke when in the stored session audio (session-diarization.ts). */
  | { type: 'diarize'; id: number; settings: EngineChoice; pcmPath: string; speech: TimeSpan[] }
  /**
   * Ends the thread between two native calls (the stop flag is set first, so queued work is skipped): a worker
   * terminated inside a native call aborts the whole process (`Napi::Error`).
   */
  | { type: 'stop' };

/** Live recognition thread → main thread. `received`: samples taken so far, for the lag. */
export type LiveReply =
  | { type: 'ready' }
  | { type: 'events'; events: LiveEvent[]; received: number }
  | { type: 'done'; id: number; events: LiveEvent[]; received: number }
  | { type: 'failed'; message: string }
  | { type: 'diarized'; id: number; turns: SpeakerTurn[] | null; message?: string };
