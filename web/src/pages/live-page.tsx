import { useEffect, useReducer, useRef, useState } from 'react';
import { applyServerEvent, base64, EMPTY_TRANSCRIPT, pcm16, realtimeUrl } from '../logic/live-transcript';
import { BASE, navigate } from '../router';
import { useClient } from '../session-context';

/** The session's input format: what the page's AudioContext resamples the microphone to. */
const SAMPLE_RATE = 24000;
/** Samples per append: 4096 at 24 kHz is ~170 ms, well within the server's 500 ms partial cadence. */
const FRAME = 4096;
/** After Stop: how long the page waits for the last utterance's text before closing anyway. */
const FINAL_WAIT_MS = 10_000;
/** After the close: how long the page waits for the transcription to be stored before linking it anyway. */
const SAVE_WAIT_MS = 30_000;

type Phase = 'idle' | 'starting' | 'listening' | 'finishing' | 'saving' | 'done';

interface Capture {
  socket: WebSocket;
  stream: MediaStream;
  context: AudioContext;
  processor: AudioWorkletNode;
}

/**
 * Live transcription from the microphone: the page mints a single-use client secret with the signed-in session
 * (POST /v1/realtime/client_secrets), opens /v1/realtime with it as the subprotocol, and sends the microphone as
 * 24 kHz PCM16. Partial words show while speaking, each utterance's text when it ends; after Stop, a link to the
 * stored transcription.
 */
export function LivePage() {
  const client = useClient();
  const [transcript, dispatch] = useReducer(applyServerEvent, EMPTY_TRANSCRIPT);
  const [phase, setPhase] = useState<Phase>('idle');
  const [problem, setProblem] = useState<string | null>(null);
  const capture = useRef<Capture | null>(null);
  const pendingRef = useRef<string[]>([]);
  pendingRef.current = transcript.pending;
  const transcriptionIdRef = useRef<string | null>(null);
  transcriptionIdRef.current = transcript.transcriptionId;

  /** The session's transcription completes (text and audio stored) just after the close: the link waits for it. */
  const stored = async (id: string | null) => {
    if (!id) return;
    const deadline = Date.now() + SAVE_WAIT_MS;
    while (Date.now() < deadline) {
      const status = await client
        .json<{ data: { status: string } }>(`/v1/transcriptions/${id}/status`)
        .then((answer) => answer.data.status)
        .catch(() => null);
      if (status !== 'processing') return;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  };

  useEffect(() => () => release(capture.current, true), []);

  const start = async () => {
    setProblem(null);
    setPhase('starting');
    try {
      const secret = await client.json<{ value: string }>('/v1/realtime/client_secrets', {
        method: 'POST',
        body: {
          expires_after: { anchor: 'created_at', seconds: 60 },
          session: {
            type: 'transcription',
            audio: { input: { format: { type: 'audio/pcm', rate: SAMPLE_RATE } } },
            metadata: { source: 'dashboard-live' },
          },
        },
      });
      const stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true },
      });
      const socket = new WebSocket(realtimeUrl(window.location), [
        'realtime',
        `openai-insecure-api-key.${secret.value}`,
      ]);
      const context = new AudioContext({ sampleRate: SAMPLE_RATE });
      // An AudioWorklet on the audio thread (web/public/pcm-capture-worklet.js, served beside the app) posts one
      // frame of FRAME samples every ~170 ms.
      await context.audioWorklet.addModule(`${BASE}/pcm-capture-worklet.js`);
      const processor = new AudioWorkletNode(context, 'pcm-capture', {
        numberOfInputs: 1,
        numberOfOutputs: 0,
        channelCount: 1,
        processorOptions: { frameSize: FRAME },
      });
      capture.current = { socket, stream, context, processor };
      socket.addEventListener('message', (message: MessageEvent<string>) => {
        const event = JSON.parse(message.data) as { type: string } & Record<string, unknown>;
        dispatch(event);
        if (event.type === 'session.created') {
          context.createMediaStreamSource(stream).connect(processor);
          setPhase('listening');
        }
      });
      socket.addEventListener('close', (close) => {
        dispatch({ type: 'session.closed' });
        release(capture.current, false);
        capture.current = null;
        if (close.code !== 1000) setProblem(`The session ended (${close.code} ${close.reason}).`);
        setPhase('saving');
        void stored(transcriptionIdRef.current).finally(() => setPhase('done'));
      });
      processor.port.onmessage = (message: MessageEvent<Float32Array>) => {
        if (socket.readyState !== WebSocket.OPEN) return;
        const audio = base64(pcm16(message.data));
        socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio }));
      };
    } catch (caught) {
      release(capture.current, true);
      capture.current = null;
      setProblem(
        (caught as Error).name === 'NotAllowedError'
          ? 'The browser did not allow the microphone.'
          : (caught as Error).message,
      );
      setPhase('idle');
    }
  };

  const stop = async () => {
    const current = capture.current;
    if (!current) return;
    setPhase('finishing');
    // No more audio; the utterance being spoken is committed, and its text awaited before closing.
    current.processor.port.onmessage = null;
    current.processor.disconnect();
    current.stream.getTracks().forEach((track) => track.stop());
    if (current.socket.readyState === WebSocket.OPEN) {
      current.socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    }
    const deadline = Date.now() + FINAL_WAIT_MS;
    // The commit's answer (an item, or an empty-buffer error) arrives before this first wait ends on a live
    // connection; then every committed utterance's text.
    await new Promise((resolve) => setTimeout(resolve, 300));
    while (pendingRef.current.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    current.socket.close(1000);
  };

  const listening = phase === 'listening';
  const link = transcript.transcriptionId ? `/transcriptions/${transcript.transcriptionId}` : null;
  return (
    <>
      <h1>Live</h1>
      <section className="card stack" aria-label="Live transcription">
        <p>
          Speak into the microphone: words appear as they are recognised, and each sentence when you pause.
          The session is stored as a transcription (billed per second of audio, standard tier).
        </p>
        <div className="live-controls">
          <button type="button" onClick={() => void start()} disabled={phase !== 'idle' && phase !== 'done'}>
            Start
          </button>
          <button type="button" onClick={() => void stop()} disabled={!listening}>
            Stop
          </button>
        </div>
        <p role="status">
          {
            {
              idle: 'Not listening.',
              starting: 'Starting…',
              listening: 'Listening…',
              finishing: 'Finishing the last sentence…',
              saving: 'Saving the transcription…',
              done: 'Stopped.',
            }[phase]
          }
        </p>
        {problem || transcript.error ? (
          <p role="alert" className="error">
            {transcript.error ? `${transcript.error.message} (${transcript.error.code})` : problem}
          </p>
        ) : null}
        <div aria-label="Live words" aria-live="polite" className="live-words">
          {transcript.finals.map((utterance) => (
            <p key={utterance.itemId} className="live-final">
              {utterance.text}
            </p>
          ))}
          {transcript.partial ? <p className="live-partial">{transcript.partial}</p> : null}
        </div>
        {phase === 'done' && link ? (
          <a
            href={`${BASE}${link}`}
            onClick={(event) => {
              event.preventDefault();
              navigate(link);
            }}
          >
            Open the transcription
          </a>
        ) : null}
      </section>
    </>
  );
}

function release(capture: Capture | null, closeSocket: boolean): void {
  if (!capture) return;
  capture.processor.port.onmessage = null;
  capture.processor.disconnect();
  capture.stream.getTracks().forEach((track) => track.stop());
  void capture.context.close().catch(() => undefined);
  if (closeSocket && capture.socket.readyState <= WebSocket.OPEN) capture.socket.close(1000);
}
