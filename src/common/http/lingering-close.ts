import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long and how much a connection answered early keeps reading (and dropping) before it closes. */
export interface LingerBounds {
  /**
   * Bytes read after the answer (after the refusal, where the refusal is known before the answer is written);
   * past this the connection is cut (HTTP_LINGER_MAX_BYTES).
   */
  maxBytes: number;
  /** Time after the answer; past this the connection is cut (HTTP_LINGER_MAX_MS). */
  maxMs: number;
}

/** How often the bytes read are checked when no request body reports them (a head too large to parse). */
const BYTE_CHECK_INTERVAL_MS = 20;

/**
 * The one lingering rule, for every answer written before the request was read (an upload refused from its head
 * or first field, a head too large to parse): once the answer is written the socket ends its side and keeps
 * reading and dropping what the client still sends, then closes.
 *
 * Closed at once, with the rest of the body unread, the kernel answers the client's next bytes with a reset,
 * which can overtake the answer: a client that reads only once its body is sent, or a proxy still sending it,
 * never sees the answer (nginx: "writev() failed (32: Broken pipe)", a 502, the process out of rotation). So the
 * connection drains the body — all of it when it is within `maxBytes` and arrives within `maxMs`, and then closes
 * cleanly, nothing left unread — and is cut past either bound: the protection against sending an unbounded body
 * to a refused request stays. What nginx does (lingering close), with bounds sized for uploads. `body`: a request
 * body closeWithoutReset is already reading and checking; `readFrom`: the socket's bytes read where the count
 * starts (the refusal's, when the body was read from there on).
 */
export function lingeringClose(
  socket: Socket,
  bounds: LingerBounds,
  body?: IncomingMessage,
  readFrom: number = socket.bytesRead,
): void {
  const cut = (): void => {
    socket.destroy();
  };
  const overBound = (): boolean => socket.bytesRead - readFrom > bounds.maxBytes;
  socket.end();
  const deadline = setTimeout(cut, bounds.maxMs);
  const byteCheck = setInterval(() => overBound() && cut(), BYTE_CHECK_INTERVAL_MS);
  deadline.unref();
  byteCheck.unref();
  socket.once('close', () => {
    clearTimeout(deadline);
    clearInterval(byteCheck);
  });
  if (body) {
    // Its chunks are checked against the bound as they come, from the refusal on (closeWithoutReset). The whole
    // body read: nothing is left for a reset, close once the answer has left.
    const closeOnceAnswered = (): void => {
      if (socket.writableFinished) cut();
      else socket.once('finish', cut);
    };
    if (body.readableEnded) closeOnceAnswered();
    else body.once('end', closeOnceAnswered);
  }
  socket.resume();
}

/**
 * Makes a request answered before its body was read (`Connection: close`) close with the lingering rule instead
 * of Node's immediate close, once the answer is written.
 */
export function closeWithoutReset(request: IncomingMessage, bounds: LingerBounds): void {
  const socket = request.socket as Socket & { destroySoon?: () => void };
  const readAtRefusal = socket.bytesRead;
  // From the refusal on, the body is read and dropped with each chunk checked against the bound (counted from
  // here). Left unread until the answer is written, Node dumps it, and its parser then drops a dumped body's
  // chunks without a 'data' event: only lingeringClose's 20 ms timer saw the bound, and a loaded CI machine read
  // 56 MB against a 32 MiB bound between two of its ticks.
  request.on('data', () => {
    if (socket.bytesRead - readAtRefusal > bounds.maxBytes) socket.destroy();
  });
  // Node's HTTP server ends a `Connection: close` exchange with socket.destroySoon() once the answer is written.
  socket.destroySoon = () => lingeringClose(socket, bounds, request, readAtRefusal);
}

/**
 * A refusal of a request whose body has not been read yet: the connection is closed after the answer (Node would
 * otherwise read and discard all of it), lingering first, reading and dropping a bounded part of the body, so that
 * a client or proxy still sending it reads the answer instead of a reset. Nothing happens once the body is read.
 */
export function refuseUnreadBody(
  request: IncomingMessage & { res?: { setHeader(name: string, value: string): unknown } },
  bounds: LingerBounds,
): void {
  if (request.readableDidRead) return;
  request.res?.setHeader('Connection', 'close');
  closeWithoutReset(request, bounds);
}
