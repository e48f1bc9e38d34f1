/**
 * A live recognition thread: one session's PocketSphinx decoder and Silero VAD. Native decoding blocks its
 * thread, so it never runs on the API's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createSherpaVad } from '../../engine/speech/sherpa-vad.binding';
import type { LiveRecognitionThreadData, LiveReply, LiveRequest } from './live-recognition-messages';
import { createLiveRecognizer } from './live-recognizer';
import { LIVE_SAMPLE_RATE, LiveTranscriber, type LiveEvent, type TurnDetection } from './live-transcriber';
import { diarizeSessionAudio } from './session-diarization';

const port = parentPort;
if (!port) throw new Error('live-recognition.thread must run as a worker thread');
const spec = workerData as LiveRecognitionThreadData;
const send = (reply: LiveReply): void => port.postMessage(reply);
const stopFlag = new Int32Array(spec.control);
/** Set by the owner before it posts `stop`: the requests queued before it are skipped, not decoded. */
const stopping = (): boolean => Atomics.load(stopFlag, 0) === 1;
/** A diarization in progress (asynchronous native work): the thread ends only after it. */
let diarizing: Promise<unknown> = Promise.resolve();

try {
  const recognizer = createLiveRecognizer(spec.pocketsphinx, spec.live.vocabulary);
  const createVad = (turn: TurnDetection) =>
    createSherpaVad(
      {
        sileroVad: {
          model: spec.vadModelPath,
          threshold: turn.threshold,
          minSilenceDuration: turn.silenceMs / 1000,
          minSpeechDuration: 0.25,
          windowSize: 512,
          maxSpeechDuration: spec.live.maxUtteranceSeconds + 5,
        },
        sampleRate: LIVE_SAMPLE_RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: false,
      },
      spec.live.maxUtteranceSeconds * 2 + 10,
    );
  const transcriber = new LiveTranscriber(recognizer, spec.live, createVad);
  const handle = (request: LiveRequest): void => {
    let events: LiveEvent[] = [];
    switch (request.type) {
      case 'stop':
        // Closing the port lets the thread end by itself, between two native calls.
        void diarizing.finally(() => port.close());
        return;
      case 'diarize':
        diarizing = diarizeSessionAudio(request.settings, request.pcmPath, request.speech).then(
          (turns) => send({ type: 'diarized', id: request.id, turns }),
          (error: unknown) =>
            send({
              type: 'diarized',
              id: request.id,
              turns: null,
              message: error instanceof Error ? error.message : String(error),
            }),
        );
        return;
      case 'configure':
        events = transcriber.configure(request.settings);
        break;
      case 'audio':
        events = transcriber.accept(request.samples);
        break;
      case 'clear':
        transcriber.clear();
        break;
      case 'commit':
      case 'finish':
        send({
          type: 'done',
          id: request.id,
          events: transcriber.commit(),
          received: transcriber.samplesReceived,
        });
        return;
    }
    send({ type: 'events', events, received: transcriber.samplesReceived });
  };
  port.on('message', (request: LiveRequest) => {
    if (stopping() && request.type !== 'stop') return;
    try {
      handle(request);
    } catch (error) {
      send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  });
  send({ type: 'ready' });
} catch (error) {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}
