/**
 * A recogniser thread: one native recogniser (its own PocketSphinx decoder) that decodes the chunks the
 * pool sends it, one at a time. Runs inside the engine child process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineError, type Recognizer } from '../engine.types';
import { PocketSphinxRecognizer } from './pocketsphinx-recognizer';
import type { ChunkReply, ChunkRequest, ThreadedRecognizerSpec } from './recognizer-thread-messages';

/** The threads run PocketSphinx, whose native decoding blocks its thread (its descriptor builds the pool). */
function createRecognizer(spec: ThreadedRecognizerSpec): Recognizer {
  return new PocketSphinxRecognizer(spec.settings);
}

const port = parentPort;
if (!port) throw new Error('recognizer-thread must run as a worker thread');
const recognizer = createRecognizer(workerData as ThreadedRecognizerSpec);
// Aborting is the pool's job (it terminates the thread); a chunk that started always runs to its end.
const neverAborted = new AbortController().signal;

port.on('message', (request: ChunkRequest) => {
  void recognizer
    .recognize(
      { samples: request.samples, offset: request.offset },
      { language: request.language, vocabulary: request.vocabulary, signal: neverAborted },
    )
    .then(
      (output): ChunkReply => ({ id: request.id, output }),
      (error: unknown): ChunkReply => ({
        id: request.id,
        error: {
          code: error instanceof EngineError ? error.code : 'ENGINE_FAILED',
          message: error instanceof Error ? error.message : String(error),
        },
      }),
    )
    .then((reply) => port.postMessage(reply));
});
