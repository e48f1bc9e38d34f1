import { createHash, randomUUID } from 'node:crypto';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { PassThrough, Transform } from 'node:stream';
import { ProblemException } from '../../common/problem/problem.exception';
import type { FileStorage } from '../../storage/file-storage';
import { publicOnlyLookup } from '../../webhooks/webhook-http-client';
import type { WebhookTargetPolicy } from '../../webhooks/webhook-target-policy';
import { cleanFileName, type StoredUpload } from './multipart-upload';

/** Redirects followed for one `audio_url`; each target is checked like the first URL. */
export const MAX_URL_REDIRECTS = 5;
const SIGNATURE_BYTES = 4100;

export interface UrlIntakeLimits {
  maxBytes: number;
  /** One deadline for every hop, the headers and the whole body. */
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: http and loopback/private addresses allowed (tests, local development). */
  allowPrivateTargets: boolean;
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
 * sniffing, local copy for ffprobe). The SSRF policy of webhooks applies: the URL and every redirect target
 * pass WebhookTargetPolicy.checkUrl, and the connection's resolver refuses non-public addresses (checked at
 * connect time, so a DNS answer cannot change in between). At most MAX_URL_REDIRECTS redirects; a declared
 * Content-Length over the limit is refused before the body, a body that passes it while streaming is cut off.
 */
export async function fetchAudioUrl(
  rawUrl: string,
  storage: FileStorage,
  policy: WebhookTargetPolicy,
  limits: UrlIntakeLimits,
): Promise<StoredUpload> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  let url = rawUrl;
  for (let redirects = 0; ; redirects++) {
    const verdict = policy.checkUrl(url);
    if (!verdict.allowed) {
      throw redirects === 0
        ? ProblemException.field('audio_url', `audio_url ${verdict.reason.replace(/ \(deliveries.*\)$/, '')}`)
        : unfetchable(`redirect to ${url}: ${verdict.reason.replace(/ \(deliveries.*\)$/, '')}`);
    }
    const response = await get(url, limits, deadline);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.destroy();
      if (redirects === MAX_URL_REDIRECTS) throw unfetchable(`more than ${MAX_URL_REDIRECTS} redirects`);
      url = new URL(location, url).href;
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw unfetchable(`HTTP ${status}`);
    }
    const declared = Number(response.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      response.destroy();
      throw tooLarge(limits.maxBytes);
    }
    return store(response, url, storage, limits, deadline);
  }
}

function describe(error: unknown, limits: UrlIntakeLimits, deadline: AbortSignal): string {
  if (deadline.aborted) return `no complete answer within ${limits.timeoutMs} ms`;
  const code = (error as { code?: unknown }).code;
  const message = String((error as { message?: unknown }).message ?? error);
  if (code === 'ENONPUBLIC') return message;
  return typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message;
}

function get(url: string, limits: UrlIntakeLimits, deadline: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let request: ClientRequest;
    try {
      request = send(target, {
        method: 'GET',
        agent: false,
        signal: deadline,
        headers: { Accept: 'audio/*, video/*, */*;q=0.1', 'Accept-Encoding': 'identity' },
        ...(limits.allowPrivateTargets ? {} : { lookup: publicOnlyLookup() }),
      });
    } catch (error) {
      reject(unfetchable(describe(error, limits, deadline)));
      return;
    }
    request.on('response', resolve);
    request.on('error', (error) => reject(unfetchable(describe(error, limits, deadline))));
    request.end();
  });
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
    refusal ??= unfetchable(describe(error, limits, deadline));
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
      throw refusal ?? unfetchable(describe(error, limits, deadline));
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
