import busboy from 'busboy';
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Transform } from 'node:stream';
import { ProblemException } from '../../common/problem/problem.exception';
import type { FileStorage, LocalCopy } from '../../storage/file-storage';

/** 500 MB, decimal, as documented. */
export const MAX_UPLOAD_BYTES = 500_000_000;
/** Room for the multipart envelope around a file of the maximum size. */
const MULTIPART_OVERHEAD_BYTES = 1_000_000;
const SIGNATURE_BYTES = 4100;

export interface StoredUpload {
  storageKey: string;
  originalFileName: string;
  size: number;
  sha256: string;
  /** The first bytes, for type detection. */
  head: Buffer;
  /** The bytes as a local file for ffprobe; the caller releases it. */
  local: LocalCopy;
}

export interface ParsedUpload {
  fields: Record<string, string>;
  file: StoredUpload | null;
}

export const tooLarge = (): ProblemException =>
  new ProblemException(
    'file-too-large',
    `The file exceeds the ${MAX_UPLOAD_BYTES / 1_000_000} MB limit.`,
    {},
    { Connection: 'close' },
  );

/** Refuses (422 file-too-large) a body whose declared Content-Length cannot hold a file within the limit. */
export function assertDeclaredLengthWithinLimit(request: IncomingMessage, maxBytes = MAX_UPLOAD_BYTES): void {
  const declaredLength = Number(request.headers['content-length'] ?? NaN);
  if (Number.isFinite(declaredLength) && declaredLength > maxBytes + MULTIPART_OVERHEAD_BYTES) {
    throw tooLarge();
  }
}

/**
 * Streams a multipart upload: the `file` part goes straight to storage (never buffered whole) while being
 * hashed; text fields are collected. Stops reading as soon as the size limit is passed and removes the
 * partial file.
 */
export async function parseMultipartUpload(
  request: IncomingMessage,
  storage: FileStorage,
  maxBytes = MAX_UPLOAD_BYTES,
): Promise<ParsedUpload> {
  assertDeclaredLengthWithinLimit(request, maxBytes);
  return new Promise<ParsedUpload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: request.headers,
        limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 30 },
        defParamCharset: 'utf8',
      });
    } catch {
      reject(new ProblemException('malformed-request', 'The multipart body has no valid boundary.'));
      return;
    }
    const fields: Record<string, string> = {};
    let stored: Promise<StoredUpload> | null = null;
    let body: PassThrough | null = null;
    let failed = false;
    const fail = (problem: unknown): void => {
      if (failed) return;
      failed = true;
      request.unpipe(parser);
      // Ends the storage write with an error, so the adapter removes what it had written.
      body?.destroy(new Error('upload refused'));
      void stored
        ?.then((upload) => Promise.all([upload.local.release(), storage.delete(upload.storageKey)]))
        .catch(() => undefined);
      reject(problem instanceof Error ? problem : new Error(String(problem)));
    };

    parser.on('field', (name, value) => {
      // A name ending in `[]` is a list (the OpenAI SDK's `timestamp_granularities[]`): repeated parts are
      // kept, comma-joined, instead of the last one winning.
      const listSoFar = name.endsWith('[]') ? fields[name] : undefined;
      fields[name] = listSoFar === undefined ? value : `${listSoFar},${value}`;
    });
    parser.on('file', (name, stream, info) => {
      // A form that ends inside a file part errors on the part's stream; unhandled, that crashes the process.
      stream.on('error', () =>
        fail(new ProblemException('malformed-request', 'The multipart body ends inside a file part.')),
      );
      // After a refusal busboy still emits the parts it had buffered: one stored now would be left behind
      // (found by the uploads fuzz suite: a malformed first part, then a second file part).
      if (failed || name !== 'file' || stored) {
        stream.resume();
        return;
      }
      const storageKey = newUploadKey();
      const { inspect, describe } = uploadInspector(storageKey, info.filename);
      stream.on('limit', () => {
        stream.unpipe(inspect);
        inspect.destroy();
        fail(tooLarge());
      });
      body = new PassThrough();
      stream.pipe(inspect).pipe(body);
      stored = storage.writeWithLocalCopy(storageKey, body).then(describe);
      // A storage write that fails mid-stream (disk full, S3 error) stops consuming the part, and busboy
      // would never close: refuse the upload at once instead of waiting for the end of the body.
      stored.catch((error: unknown) => fail(error));
    });
    parser.on('error', () =>
      fail(new ProblemException('malformed-request', 'The multipart body is malformed.')),
    );
    parser.on('close', () => {
      if (failed) return;
      if (!stored) return resolve({ fields, file: null });
      stored
        .then(
          async (file) => {
            if (!failed) return resolve({ fields, file });
            await Promise.all([file.local.release(), storage.delete(file.storageKey)]);
          },
          (error: unknown) => fail(error),
        )
        .catch(() => undefined);
    });
    request.on('aborted', () => fail(new ProblemException('malformed-request', 'The upload was aborted.')));
    request.pipe(parser);
  });
}

/** Where an upload's bytes are stored: one object per upload, by day. */
export function newUploadKey(): string {
  return `uploads/${new Date().toISOString().slice(0, 10)}/${randomUUID()}`;
}

/**
 * The pass-through an upload's bytes take on their way to storage: hashed, the first bytes kept for type
 * detection, counted. `describe` turns the storage write's result into the StoredUpload.
 */
export function uploadInspector(
  storageKey: string,
  fileName: string | undefined,
): { inspect: Transform; describe: (written: { bytes: number; local: LocalCopy }) => StoredUpload } {
  const hash = createHash('sha256');
  const headChunks: Buffer[] = [];
  let headLength = 0;
  const inspect = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      if (headLength < SIGNATURE_BYTES) {
        headChunks.push(chunk.subarray(0, SIGNATURE_BYTES - headLength));
        headLength += Math.min(chunk.length, SIGNATURE_BYTES - headLength);
      }
      callback(null, chunk);
    },
  });
  const describe = ({ bytes, local }: { bytes: number; local: LocalCopy }): StoredUpload => ({
    storageKey,
    originalFileName: cleanFileName(fileName),
    size: bytes,
    sha256: hash.digest('hex'),
    head: Buffer.concat(headChunks),
    local,
  });
  return { inspect, describe };
}

/** Keeps the base name only (no client paths), without control characters, at most 255 characters. */
export function cleanFileName(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = [...base]
    .filter((character) => character.charCodeAt(0) > 0x1f && character.charCodeAt(0) !== 0x7f)
    .join('')
    .trim();
  return (cleaned || 'upload').slice(0, 255);
}
