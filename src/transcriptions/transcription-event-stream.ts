import type { Request, Response } from 'express';
import type { TranscriptionEventsService, TranscriptionStateFrame } from './transcription-events.service';

const HEARTBEAT_MS = 15_000;
/** A safety net for a lost pub/sub message: the stream re-reads the record this often. */
const RECHECK_MS = 5_000;

const isTerminal = (frame: TranscriptionStateFrame) =>
  frame.status === 'completed' || frame.status === 'failed';

/**
 * One SSE stream: subscribe first, then send the current state, then every change; close after a
 * terminal status or when the client goes away. Heartbeat comments keep proxies from closing it.
 */
export async function streamTranscriptionState(
  request: Request,
  response: Response,
  transcriptionId: string,
  events: TranscriptionEventsService,
  readState: () => Promise<TranscriptionStateFrame | null>,
): Promise<void> {
  let last: string | null = null;
  let closed = false;
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe: () => void = () => undefined;

  const close = (): void => {
    if (closed) return;
    closed = true;
    timers.forEach(clearInterval);
    unsubscribe();
    response.end();
  };
  const send = (frame: TranscriptionStateFrame): void => {
    if (closed) return;
    const data = JSON.stringify({ status: frame.status, progress: frame.progress });
    if (data !== last) {
      last = data;
      response.write(`data: ${data}\n\n`);
    }
    if (isTerminal(frame)) close();
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

  await recheck();
  ready = true;
  // Frames that raced the first read may be older than it; only newer information is passed on.
  const first = last ? (JSON.parse(last) as TranscriptionStateFrame) : null;
  pending
    .splice(0)
    .filter(
      (frame) =>
        !first || isTerminal(frame) || frame.status !== first.status || frame.progress > first.progress,
    )
    .forEach(send);
  if (closed) return;
  timers.push(setInterval(() => !closed && response.write(': heartbeat\n\n'), HEARTBEAT_MS));
  timers.push(setInterval(() => void recheck(), RECHECK_MS));
}
