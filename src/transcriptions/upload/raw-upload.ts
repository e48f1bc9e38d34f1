import type { IncomingMessage } from 'node:http';
import { PassThrough, Transform } from 'node:stream';
import { ProblemException } from '../../common/problem/problem.exception';
import type { FileStorage } from '../../storage/file-storage';
import {
  assertDeclaredLengthWithinLimit,
  MAX_UPLOAD_BYTES,
  newUploadKey,
  type StoredUpload,
  tooLarge,
  uploadInspector,
} from './multipart-upload';

/**
 * Streams a request whose body is the audio itself (Deepgram's `POST /v1/listen`) to storage, hashed as a
 * multipart file part is. The name comes from `Content-Disposition: …; filename="…"` when the client sends one
 * (the Deepgram SDK does). Reading stops as soon as the size limit is passed and the partial object is removed;
 * an empty body is refused as a missing file.
 */
export async function storeRawUpload(
  request: IncomingMessage,
  storage: FileStorage,
  maxBytes = MAX_UPLOAD_BYTES,
): Promise<StoredUpload> {
  assertDeclaredLengthWithinLimit(request, maxBytes);
  const storageKey = newUploadKey();
  const { inspect, describe } = uploadInspector(storageKey, dispositionFileName(request));
  let received = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (received > maxBytes) callback(tooLarge());
      else callback(null, chunk);
    },
  });
  const body = new PassThrough();
  return new Promise<StoredUpload>((resolve, reject) => {
    let failed = false;
    const fail = (problem: unknown): void => {
      if (failed) return;
      failed = true;
      request.unpipe(limit);
      // Ends the storage write with an error, so the adapter removes what it had written.
      body.destroy(new Error('upload refused'));
      reject(problem instanceof Error ? problem : new Error(String(problem)));
    };
    limit.on('error', fail);
    request.on('aborted', () => fail(new ProblemException('malformed-request', 'The upload was aborted.')));
    request.pipe(limit).pipe(inspect).pipe(body);
    storage
      .writeWithLocalCopy(storageKey, body)
      .then(describe)
      .then(
        async (file) => {
          if (failed) {
            await Promise.all([file.local.release(), storage.delete(file.storageKey)]);
            return;
          }
          if (file.size > 0) return resolve(file);
          await Promise.all([file.local.release(), storage.delete(file.storageKey)]);
          fail(
            new ProblemException(
              'missing-file',
              'The request body is empty: send the audio as the body, or JSON {"url": "…"}.',
            ),
          );
        },
        (error: unknown) => fail(error),
      )
      .catch(() => undefined);
  });
}

/** `attachment; filename="call.wav"` → `call.wav`; undefined without one (the upload is then named `upload`). */
export function dispositionFileName(request: IncomingMessage): string | undefined {
  const header = request.headers['content-disposition'];
  if (typeof header !== 'string') return undefined;
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return quoted[1].replace(/\\(.)/g, '$1');
  return /filename\s*=\s*([^;\s]+)/i.exec(header)?.[1];
}
