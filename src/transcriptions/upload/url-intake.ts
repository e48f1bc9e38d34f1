import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Transform } from 'node:stream';
import { ProblemException } from '../../common/problem/problem.exception';
import { describeTransportError, OutboundGetError, outboundGet } from '../../outbound-url/outbound-get';
import type { OutboundUrlPolicy } from '../../outbound-url/outbound-url-policy';
import type { FileStorage } from '../../storage/file-storage';
import { cleanFileName, type StoredUpload } from './multipart-upload';

/** Redirects followed for one `audio_url`; each target is checked like the first URL. */
export const MAX_URL_REDIRECTS = 5;
const SIGNATURE_BYTES = 4100;

export interface UrlIntakeLimits {
  maxBytes: number;
  /** One deadline for every hop, the headers and the whole body. */
  timeoutMs: number;
}

/** The fetch failed for a reason the caller can fix: 422 validation on `audio_url`, naming the reason. */
const unfetchable = (reason: string): ProblemException =>
  ProblemException.field('audio_url', `audio_url could not be fetched: ${reason}`);

const tooLarge = (maxBytes: number): ProblemException =>
  new ProblemException(
    'file-too-large',
    `The file at audio_url exceeds the ${maxBytes / 1_000_000} MB limit.`,
  );

/**
 * Fetches `audio_url` into storage, like the `file` part of an upload (same StoredUpload: hash, head for
 * sniffing, local copy for ffprobe). The service's outbound-URL policy applies to the URL and to every
 * redirect (outboundGet, at most MAX_URL_REDIRECTS); a declared Content-Length over the limit is refused
 * before the body, a body that passes it while streaming is cut off.
 */
export async function fetchAudioUrl(
  rawUrl: string,
  storage: FileStorage,
  policy: OutboundUrlPolicy,
  limits: UrlIntakeLimits,
): Promise<StoredUpload> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const { response, url } = await outboundGet(rawUrl, {
    policy,
    maxRedirects: MAX_URL_REDIRECTS,
    deadline,
    timeoutMs: limits.timeoutMs,
    headers: { Accept: 'audio/*, video/*, */*;q=0.1', 'Accept-Encoding': 'identity' },
  }).catch((error: unknown) => {
    if (!(error instanceof OutboundGetError)) throw error;
    throw error.kind === 'refused'
      ? ProblemException.field('audio_url', `audio_url ${error.reason}`)
      : unfetchable(error.reason);
  });
  const declared = Number(response.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    response.destroy();
    throw tooLarge(limits.maxBytes);
  }
  return store(response, url, storage, limits, deadline);
}

function store(
  response: IncomingMessage,
  url: string,
  storage: FileStorage,
  limits: UrlIntakeLimits,
  deadline: AbortSignal,
): Promise<StoredUpload> {
  const storageKey = `uploads/${new Date().toISOString().slice(0, 10)}/${randomUUID()}`;
  const hash = createHash('sha256');
  const headChunks: Buffer[] = [];
  let headLength = 0;
  let received = 0;
  let refusal: ProblemException | null = null;
  const body = new PassThrough();
  const inspect = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (received > limits.maxBytes) {
        refusal = tooLarge(limits.maxBytes);
        return callback(refusal);
      }
      hash.update(chunk);
      if (headLength < SIGNATURE_BYTES) {
        headChunks.push(chunk.subarray(0, SIGNATURE_BYTES - headLength));
        headLength += Math.min(chunk.length, SIGNATURE_BYTES - headLength);
      }
      callback(null, chunk);
    },
  });
  const fail = (error: unknown): void => {
    refusal ??= unfetchable(describeTransportError(error, { deadline, timeoutMs: limits.timeoutMs }));
    response.destroy();
    // Ends the storage write with an error, so the adapter removes what it had written.
    body.destroy(new Error('audio_url fetch refused'));
  };
  response.on('error', fail);
  response.on('aborted', () => fail(new Error('the connection closed before the body ended')));
  inspect.on('error', fail);
  response.pipe(inspect).pipe(body);
  return storage.writeWithLocalCopy(storageKey, body).then(
    async ({ bytes, local }) => {
      if (refusal || !response.complete) {
        await Promise.all([local.release(), storage.delete(storageKey)]).catch(() => undefined);
        throw refusal ?? unfetchable('the connection closed before the body ended');
      }
      return {
        storageKey,
        originalFileName: cleanFileName(decodeURIComponentSafe(new URL(url).pathname)),
        size: bytes,
        sha256: hash.digest('hex'),
        head: Buffer.concat(headChunks),
        local,
      };
    },
    (error: unknown) => {
      throw refusal ?? unfetchable(describeTransportError(error, { deadline, timeoutMs: limits.timeoutMs }));
    },
  );
}

function decodeURIComponentSafe(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
