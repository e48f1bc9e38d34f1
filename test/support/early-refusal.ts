import { readFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { basename } from 'node:path';
import type { Response } from 'supertest';
import { listeningPort } from './test-app';

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

/**
 * Starts listening (in-process app) and records, per request, the socket's bytes read when the answer ended
 * and when the connection closed (what a lingering close read after the answer included).
 */
export async function listenWithReadCounter(server: Server): Promise<{
  port: number;
  bytesReadFor: (marker: string) => number | undefined;
  bytesReadAtCloseFor: (marker: string) => number | undefined;
}> {
  await listeningPort(server);
  const readByMarker = new Map<string, number>();
  const readAtClose = new Map<string, number>();
  server.prependListener('request', (request, response) => {
    const marker = request.headers['x-test-marker'];
    if (typeof marker !== 'string') return;
    response.on('finish', () => readByMarker.set(marker, request.socket.bytesRead));
    request.socket.once('close', () => readAtClose.set(marker, request.socket.bytesRead));
  });
  return {
    port: (server.address() as AddressInfo).port,
    bytesReadFor: (marker) => readByMarker.get(marker),
    bytesReadAtCloseFor: (marker) => readAtClose.get(marker),
  };
}

export interface UploadAnswer {
  status: number;
  /** Lower-case names (a repeated header keeps its last value). */
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON for a JSON answer (as supertest gives it), else {}. */
  body: Response['body'];
  /** Bytes of the request body written to the socket before the answer or the server's close. */
  bodyBytesSent: number;
}

export type UploadFile = { path: string; filename?: string } | { content: Buffer; filename: string };

/**
 * POSTs a multipart upload over a plain socket and returns the server's answer whenever it comes: before,
 * during or after the body. supertest (and node:http) destroy the socket when a write fails, so a server that
 * answers early and closes made the test fail with `write EPIPE` or `ECONNRESET` whenever the body outgrew
 * the socket buffers, before the answer already received could be read. Here a failed write only stops the
 * writing: the socket stays open for reading (autoDestroy off), and the answer the kernel holds is read.
 */
export async function postMultipart(
  server: Server,
  path: string,
  headers: Record<string, string>,
  fields: Record<string, string>,
  file: UploadFile | null,
): Promise<UploadAnswer> {
  const port = await listeningPort(server);
  const boundary = `upload-${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    const content = 'content' in file ? file.content : readFileSync(file.path);
    const filename = file.filename ?? basename('path' in file ? file.path : 'upload');
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      content,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Connection: close',
    `Content-Type: multipart/form-data; boundary=${boundary}`,
    `Content-Length: ${body.length}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');

  return new Promise<UploadAnswer>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    // A write error must not take the read side down with it (net.Socket forces autoDestroy on).
    const internals = socket as unknown as {
      _writableState: { autoDestroy: boolean };
      _readableState: { autoDestroy: boolean };
    };
    internals._writableState.autoDestroy = false;
    internals._readableState.autoDestroy = false;
    let received = Buffer.alloc(0);
    let answer: UploadAnswer | null = null;
    let writeFailed = false;
    let lastError: Error | null = null;
    let bodyBytesSent = 0;

    const finish = (): void => {
      const parsed = parseAnswer(received, true);
      socket.destroy();
      if (parsed) resolve({ ...parsed, bodyBytesSent });
      else
        reject(
          lastError ?? new Error(`the connection closed without an answer (${received.length} bytes read)`),
        );
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseAnswer(received, false);
      if (parsed && !answer) {
        answer = { ...parsed, bodyBytesSent };
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('error', (error) => (lastError ??= error));
    socket.on('close', () => {
      if (!answer) finish();
    });

    const write = (chunk: Buffer): Promise<void> =>
      new Promise((done) => {
        socket.write(chunk, (error) => {
          if (error) writeFailed = true;
          done();
        });
      });
    void (async () => {
      await write(Buffer.from(head));
      for (let offset = 0; offset < body.length && !answer && !writeFailed && !socket.destroyed;) {
        const chunk = body.subarray(offset, offset + 64 * 1024);
        await write(chunk);
        if (!writeFailed) bodyBytesSent += chunk.length;
        offset += chunk.length;
      }
    })();
  });
}

/** An HTTP/1.1 answer from its bytes: null until it is complete (or, at `closed`, when there is none). */
function parseAnswer(bytes: Buffer, closed: boolean): Omit<UploadAnswer, 'bodyBytesSent'> | null {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const [statusLine, ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let payload = bytes.subarray(headEnd + 4);
  const declared = headers['content-length'];
  if (declared !== undefined) {
    if (payload.length < Number(declared)) return null;
    payload = payload.subarray(0, Number(declared));
  } else if (headers['transfer-encoding'] === 'chunked') {
    const decoded = dechunk(payload);
    if (!decoded) return null;
    payload = decoded;
  } else if (!closed) return null;
  const text = payload.toString('utf8');
  const json = /json/.test(String(headers['content-type'] ?? ''));
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    text,
    body: json && text !== '' ? (JSON.parse(text)) : {},
  };
}

/** A complete chunked body, or null while its last chunk has not arrived. */
function dechunk(bytes: Buffer): Buffer | null {
  const out: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset);
    if (lineEnd === -1) return null;
    const size = parseInt(bytes.subarray(offset, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(out);
    if (bytes.length < lineEnd + 2 + size + 2) return null;
    out.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}
