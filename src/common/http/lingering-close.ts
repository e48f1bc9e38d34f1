import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** At most this long a closing connection keeps reading (and dropping) what its client still sends. */
export const LINGER_MS = 1_000;

/**
 * Closes a connection answered before its request body was read (`Connection: close`) without a reset. Closed at
 * once, with the rest of the body unread, the kernel answers the client's next bytes with a reset, which can
 * overtake the answer: a proxy still sending the body then never reads it (nginx: "writev() failed (32: Broken
 * pipe) while sending request to upstream", a 502 to the client, and the process taken out of rotation for
 * `fail_timeout`). Instead, once the answer is written the socket ends its side, drops what still arrives, and is
 * destroyed when the client closes, or after LINGER_MS at most: what nginx does itself (lingering close) and
 * oversized-head.ts does for a head too large to read.
 */
export function closeWithoutReset(request: IncomingMessage): void {
  const socket = request.socket as Socket & { destroySoon?: () => void };
  // Node's HTTP server ends a `Connection: close` exchange with socket.destroySoon() once the answer is written.
  socket.destroySoon = () => {
    socket.end();
    request.resume();
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
