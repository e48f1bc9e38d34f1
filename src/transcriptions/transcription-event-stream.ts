import type { Request, Response } from 'express';
import type { ShutdownCoordinator } from '../common/lifecycle/shutdown-coordinator';
import type { TranscriptionEventsService, TranscriptionStateFrame } from './transcription-events.service';
import { isTerminal } from './transcription-state';

const HEARTBEAT_MS = 15_000;
/** A safety net for a lost pub/sub message: the stream re-reads the record this often. */
const RECHECK_MS = 5_000;

const STATUS_ORDER: Record<TranscriptionStateFrame['status'], number> = {
  queued: 0,
  processing: 1,
  completed: 2,
  failed: 2,
};

/** The `id:` of the frame with a terminal status (`completed` or `failed`), after every other frame's. */
export const TERMINAL_FRAME_ID = '102';

/**
 * The frame's `id:`, increasing along a job's life: `queued` 0, `processing` at p % 1 + p, the terminal frame
 * 102. A reconnecting EventSource sends the last one it saw as `Last-Event-ID`.
 */
export function frameId(frame: TranscriptionStateFrame): string {
  if (isTerminal(frame.status)) return TERMINAL_FRAME_ID;
  return String(frame.status === 'queued' ? 0 : 1 + frame.progress);
}

/**
 * A client whose last seen frame was the terminal one of a job that is finished has everything: 204 tells an
 * EventSource to stop reconnecting (without it, it re-opens the closed stream every `retry` ms forever).
 */
function clientHasTheEnd(state: TranscriptionStateFrame, request: Request): boolean {
  return isTerminal(state.status) && request.header('last-event-id')?.trim() === TERMINAL_FRAME_ID;
}

export interface TranscriptionStream {
  transcriptionId: string;
  /** The state read before the stream (the 404 check); it decides the 204. */
  current: TranscriptionStateFrame;
  events: TranscriptionEventsService;
  /** Re-reads the state; null once the transcription is gone. */
  readState: () => Promise<TranscriptionStateFrame | null>;
  /** The `retry:` hint (SSE_RETRY_MS). */
  retryMs: number;
  /** On shutdown the stream ends with an `event: shutdown` frame, so the client reconnects elsewhere. */
  shutdown: ShutdownCoordinator;
}

let streamCount = 0;

/** Whether a frame says something later than the last one sent: a later status, or more progress. */
function isNewer(frame: TranscriptionStateFrame, sent: TranscriptionStateFrame): boolean {
  const order = STATUS_ORDER[frame.status] - STATUS_ORDER[sent.status];
  if (order !== 0) return order > 0;
  return frame.status !== sent.status || frame.progress > sent.progress;
}

/**
 * One SSE stream: subscribe first, then send the `retry:` hint and the current state, then every change;
 * close after a terminal status or when the client goes away. Heartbeat comments keep proxies from closing
 * it. Each frame carries its `id:` (frameId). 204 instead when the client already saw the end.
 */
export async function streamTranscriptionState(
  request: Request,
  response: Response,
  { transcriptionId, current, events, readState, retryMs, shutdown }: TranscriptionStream,
): Promise<void> {
  if (clientHasTheEnd(current, request)) {
    response.status(204).end();
    return;
  }
  let closed = false;
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe: () => void = () => undefined;
  let stopDraining: () => void = () => undefined;

  const close = (): void => {
    if (closed) return;
    closed = true;
    timers.forEach(clearInterval);
    unsubscribe();
    stopDraining();
    response.end();
  };
  /** The process is shutting down: a named frame (ignored by `onmessage`), then the end; EventSource reconnects. */
  const closeForShutdown = async (): Promise<void> => {
    if (closed) return;
    response.write(`event: shutdown\nretry: ${retryMs}\ndata: {"reason":"server shutting down"}\n\n`);
    close();
  };
  let lastFrame: TranscriptionStateFrame | null = null;
  const send = (frame: TranscriptionStateFrame): void => {
    if (closed) return;
    // A re-read or a late pub/sub message may be older than what was sent: never step back.
    if (lastFrame && !isNewer(frame, lastFrame)) return;
    lastFrame = { status: frame.status, progress: frame.progress };
    response.write(`id: ${frameId(lastFrame)}\ndata: ${JSON.stringify(lastFrame)}\n\n`);
    if (isTerminal(frame.status)) close();
  };
  const recheck = async (): Promise<void> => {
    const state = await readState().catch(() => undefined);
    if (state === null) close();
    else if (state) send(state);
  };

  const pending: TranscriptionStateFrame[] = [];
  let ready = false;
  unsubscribe = await events.subscribeToState(transcriptionId, (frame) =>
    ready ? send(frame) : pending.push(frame),
  );
  request.on('close', close);

  response.status(200);
  response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  response.setHeader('Cache-Control', 'no-cache, no-transform');
  response.setHeader('Connection', 'keep-alive');
  response.setHeader('X-Accel-Buffering', 'no');
  response.flushHeaders();
  response.write(`retry: ${retryMs}\n\n`);

  await recheck();
  ready = true;
  // Frames that raced the first read may be older than it; send() passes on only newer information.
  pending.splice(0).forEach(send);
  if (closed) return;
  if (shutdown.draining) return void closeForShutdown();
  stopDraining = shutdown.onDrain(`event-stream-${++streamCount}`, closeForShutdown);
  timers.push(setInterval(() => !closed && response.write(': heartbeat\n\n'), HEARTBEAT_MS));
  timers.push(setInterval(() => void recheck(), RECHECK_MS));
}
