import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { HttpConfig } from './http.config';
import { ProblemConfig } from '../problem/problem.config';
import { sendProblem } from '../problem/problem-details.filter';
import { ProblemException } from '../problem/problem.exception';

/**
 * Slow clients (slowloris): Node holds a stalled request for up to requestTimeout (300 s by default); here a
 * connection may stay silent for at most HTTP_IDLE_TIMEOUT_MS while its request is still arriving:
 * - a new connection that sends no complete head in that time is closed (no request exists to answer);
 * - a request whose body stalls is answered 408 `request-timeout` with `Connection: close`; the socket then
 *   closes, the request is aborted, and whoever was reading it (the upload parser) removes its partial file;
 * - once the request has fully arrived the idle limit is lifted: the service's own work (probing an
 *   upload, an SSE stream) is not the client's stall.
 * A steady slow upload is never idle, so it succeeds however long it takes (up to HTTP_REQUEST_TIMEOUT_MS).
 * A head trickled byte by byte is bounded by Node's headersTimeout (HTTP_HEADERS_TIMEOUT_MS).
 */
export function applyIdleTimeouts(server: Server, config: HttpConfig): void {
  server.headersTimeout = config.HTTP_HEADERS_TIMEOUT_MS;
  server.requestTimeout = config.HTTP_REQUEST_TIMEOUT_MS;
  server.on('connection', (socket: Socket) => socket.setTimeout(config.HTTP_IDLE_TIMEOUT_MS));
}

/** First middleware of every request: arms the idle limit while the body arrives (see applyIdleTimeouts). */
export function idleRequestTimeout(config: HttpConfig, problemConfig: ProblemConfig) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const socket = request.socket;
    if (request.complete) {
      socket.setTimeout(0);
      return next();
    }
    socket.setTimeout(config.HTTP_IDLE_TIMEOUT_MS);
    // Node emits 'timeout' on a request still incomplete when its socket idles; with a listener here it
    // leaves the socket open for this answer instead of destroying it silently.
    request.on('timeout', () => {
      if (response.headersSent) {
        socket.destroy();
        return;
      }
      sendProblem(
        response,
        problemConfig,
        new ProblemException(
          'request-timeout',
          `The request body sent nothing for ${config.HTTP_IDLE_TIMEOUT_MS} ms; send it again.`,
          {},
          { Connection: 'close' },
        ),
      );
      // Once answered, the request is no longer in Node's list of requests to abort when the socket closes:
      // destroy it ourselves, which emits 'aborted' to its reader (the upload parser removes its partial
      // file) and closes the socket after the answer has been written.
      response.once('finish', () => setImmediate(() => request.destroy()));
      // A client that never reads the answer must not keep the socket either.
      setTimeout(() => socket.destroy(), 1_000).unref();
    });
    request.once('end', () => {
      // After the answer, Node sets its keep-alive timeout on the socket; leave that one alone.
      if (!response.writableFinished) socket.setTimeout(0);
    });
    next();
  };
}
