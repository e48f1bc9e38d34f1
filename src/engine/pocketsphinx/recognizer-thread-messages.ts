import type { PocketSphinxSettings } from '../engine-settings';
import type { EngineErrorCode, RecognitionOutput } from '../engine.types';

/** The in-process recognisers that run on worker threads (their native calls block the thread). */
export type ThreadedRecognizerSpec = { kind: 'pocketsphinx'; settings: PocketSphinxSettings };

/** Main thread → recogniser thread: one chunk. The samples' buffer is transferred, not copied. */
export interface ChunkRequest {
  id: number;
  samples: Float32Array;
  offset: number;
  language: string;
  vocabulary: string[];
}

/** Recogniser thread → main thread. */
export type ChunkReply =
  | { id: number; output: RecognitionOutput }
  | { id: number; error: { code: EngineErrorCode; message: string } };
