import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StreamedUploadOutcome {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Bytes the client had handed to its socket when the answer arrived. */
  clientBytesSent: number;
}

const CHUNK = Buffer.alloc(1024 * 1024);

/**
 * POSTs a well-formed multipart upload of exactly `declaredBytes` (a `file` part of zeros), generated while it
 * is sent and stopped as soon as the answer arrives; without an answer after `giveUpAfterBytes` it rejects.
 * The connection is not reused (agent: false), so the server's count of bytes read is this request's.
 */
export function streamedUpload(
  port: number,
  headers: Record<string, string>,
  declaredBytes: number,
  giveUpAfterBytes: number,
): Promise<StreamedUploadOutcome> {
  const boundary = 'early-refusal-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    let answered = false;
    let sent = 0;
    const nextChunk = (): Buffer | null => {
      if (sent === 0) return head;
      const left = declaredBytes - sent;
      if (left <= 0) return null;
      if (left <= tail.length) return tail.subarray(tail.length - left);
      return CHUNK.subarray(0, Math.min(CHUNK.length, left - tail.length));
    };
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/transcriptions',
        agent: false,
        headers: {
          ...headers,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(declaredBytes),
        },
      },
      (response) => {
        answered = true;
        const clientBytesSent = request.socket?.bytesWritten ?? sent;
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          request.destroy();
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body, clientBytesSent });
        });
      },
    );
    // Once answered, the server may close while bytes are still on their way: that is the point.
    request.on('error', (error) => (answered ? undefined : reject(error)));
    const pump = (): void => {
      while (!answered) {
        const chunk = nextChunk();
        if (sent >= giveUpAfterBytes || !chunk) {
          if (chunk) {
            reject(new Error(`no answer after sending ${sent} bytes of the ${declaredBytes} declared`));
            request.destroy();
          } else request.end();
          return;
        }
        sent += chunk.length;
        if (!request.write(chunk)) {
          request.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

/**
 * A slow client: sends an upload's head, the `file` part's header and 64 KB of a `declaredBytes` body, then
 * stalls (its Idempotency-Key claim is held meanwhile). The caller destroys it.
 */
export function startStalledUpload(
  port: number,
  headers: Record<string, string>,
  declaredBytes: number,
): ClientRequest {
  const request = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/transcriptions',
    agent: false,
    headers: {
      ...headers,
      'Content-Type': 'multipart/form-data; boundary=b',
      'Content-Length': String(declaredBytes),
    },
  });
  request.on('error', () => undefined);
  request.write('--b\r\nContent-Disposition: form-data; name="file"; filename="slow.wav"\r\n\r\n');
  request.write(Buffer.alloc(64 * 1024));
  return request;
}

/** Starts listening (in-process app) and records, per request, the socket's bytes read when the answer ended. */
export async function listenWithReadCounter(
  server: Server,
): Promise<{ port: number; bytesReadFor: (marker: string) => number | undefined }> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const readByMarker = new Map<string, number>();
  server.prependListener('request', (request, response) => {
    const marker = request.headers['x-test-marker'];
    if (typeof marker !== 'string') return;
    response.on('finish', () => readByMarker.set(marker, request.socket.bytesRead));
  });
  return { port: (server.address() as AddressInfo).port, bytesReadFor: (marker) => readByMarker.get(marker) };
}
