import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ProblemConfig } from '../problem/problem.config';
import { problemBody } from '../problem/problem-details.filter';
import { ProblemException } from '../problem/problem.exception';
import { lingeringClose, type LingerBounds } from './lingering-close';
import { API_POLICY } from './security-headers';

/** Node's own answers to the other parse failures, as it writes them when no listener is installed. */
const NODE_DEFAULT_ANSWER: Record<string, string> = {
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
};
const NODE_BAD_REQUEST = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';

/**
 * A request head over Node's `maxHeaderSize` (16 KB, its default) never becomes a request: the parser fails
 * and Node would answer a bare 431. Here it is the documented problem+json `request-header-fields-too-large`
 * (headers of every answer included); every other parse failure keeps Node's own answer. Either way the
 * connection is closed, since the rest of the head cannot be told apart from a next request.
 */
export function answerOversizedHeadsAsProblems(
  server: Server,
  config: ProblemConfig,
  linger: LingerBounds,
): void {
  const answered = new WeakSet<Socket>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // The failed parser reports again for each later chunk of the same head: answered once is enough.
    if (answered.has(socket)) return;
    // As Node: answer only while no response of this connection has started (a keep-alive reset mid-answer
    // must not get a second status line).
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    if (error.code !== 'HPE_HEADER_OVERFLOW') {
      socket.write(NODE_DEFAULT_ANSWER[error.code ?? ''] ?? NODE_BAD_REQUEST);
      socket.destroy();
      return;
    }
    answered.add(socket);
    const body = JSON.stringify(
      problemBody(
        config,
        new ProblemException(
          'request-header-fields-too-large',
          'The request line and headers together exceed 16 KB; send fewer or shorter headers.',
        ),
      ),
    );
    socket.end(
      [
        'HTTP/1.1 431 Request Header Fields Too Large',
        'Content-Type: application/problem+json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Cache-Control: no-store',
        // The head cannot be read, the caller's X-Request-Id with it: a fresh id, as for a request without one.
        `X-Request-Id: ${randomUUID()}`,
        'X-Content-Type-Options: nosniff',
        `Content-Security-Policy: ${API_POLICY}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
    // The unread rest of the head would turn a close into a reset that can overtake the answer: read and drop
    // what follows until the client closes, within the lingering bounds.
    lingeringClose(socket, linger);
  });
}
