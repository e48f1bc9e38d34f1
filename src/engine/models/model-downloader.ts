import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import * as tls from 'node:tls';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { openTunnel, proxyAuthorization, proxyFor, type ProxySettings } from './download-proxy';
import { installedBytes, installedModelPath, type ModelChecksum, type ModelEntry } from './model-catalogue';

/**
 * Downloads one catalogue model into MODELS_DIR with Node's own http/https (no dependency):
 * `<file>.partial` is written first, resumed with `Range: bytes=N-`, hashed as a whole (resumed part included)
 * and renamed into place only when the pinned checksum matches.
 *
 * Retries: a request that ends early (cut connection, idle stall, 408, 429, 5xx, a 403 to a ranged request) is
 * followed by another that resumes where the partial file ends. An attempt that added bytes is retried at once
 * and does not count against the budget, because the Hugging Face download bridge is known to cut large bodies
 * mid-way again and again; only `maxAttemptsWithoutProgress` attempts in a row that added nothing end the pull.
 * Those wait before the next try: the server's `Retry-After` (seconds or an HTTP date, capped at
 * `retryAfterMaxMs`) or else a doubling back-off from `retryDelayMs`. A source never reached in this pull (no
 * network, name lookup fails) is not retried: the pull fails at once.
 *
 * What is left behind on failure, and why:
 * - wrong checksum, wrong size, HTTP 404 or another 4xx to a plain request: nothing (the source does not have
 *   this file, resuming it would only repeat the failure);
 * - cannot reach the source, a cut connection, an idle stall, 408, 429, 5xx, or a 403 to a ranged request (a
 *   CDN's signed URL expires, a rate limit answers 403): the partial file, if it holds bytes, so the next
 *   `models:pull` resumes instead of starting over (gigabytes for large-v3); an empty partial is removed, so a
 *   machine without network is left exactly as it was;
 * - an archive that verified but cannot be unpacked (no bzip2 on the machine): the archive, under its own
 *   name, so the next pull unpacks it without downloading it again.
 */

export interface PullOptions {
  modelsDir: string;
  /** MODELS_SOURCE_URL: a mirror with the official path layout; unset → each model's official origin. */
  sourceBaseUrl?: string;
  /** Name lookup, TCP and TLS must finish within this; it keeps a machine without internet from hanging. */
  connectTimeoutMs: number;
  /** A connection that sends nothing for this long counts as cut. */
  idleTimeoutMs: number;
  /** HTTPS_PROXY / HTTP_PROXY / NO_PROXY (download-proxy.ts); unset: every source is reached directly. */
  proxy?: ProxySettings;
  /** The pull ends after this many requests in a row that added no bytes (default 5). */
  maxAttemptsWithoutProgress?: number;
  /** Wait before the first retry without progress when the server names none; doubles each time (default 1 s). */
  retryDelayMs?: number;
  /** A server's Retry-After longer than this is cut down to it (default 120 s). */
  retryAfterMaxMs?: number;
  onProgress?: (progress: PullProgress) => void;
  /** Called before waiting for a retry that follows an attempt without progress. */
  onRetry?: (retry: PullRetry) => void;
}

export interface PullRetry {
  reason: string;
  waitMs: number;
  attemptsWithoutProgress: number;
}

export interface PullProgress {
  received: number;
  total: number;
}

export interface PullResult {
  name: string;
  path: string;
  bytes: number;
  url: string;
  checksum: ModelChecksum;
  alreadyInstalled: boolean;
  /** Bytes already on disk (from a partial file) when this pull started downloading; 0 for a fresh start. */
  resumedFrom: number;
  requests: number;
}

export type PullErrorCode =
  | 'NO_CHECKSUM'
  | 'NOT_FOUND'
  | 'HTTP_ERROR'
  | 'UNREACHABLE'
  | 'INTERRUPTED'
  | 'CHECKSUM_MISMATCH'
  | 'SIZE_MISMATCH'
  | 'TOO_MANY_REDIRECTS'
  | 'EXTRACT_FAILED'
  | 'BAD_PROXY';

export interface PullFailureTraits {
  /** The failure is transient: bytes already downloaded are worth keeping for a resume. */
  resumable?: boolean;
  /** Another request may succeed (a cut, a rate limit, a 5xx), so the pull tries again. */
  retryable?: boolean;
  /** The server's Retry-After, in milliseconds from when it answered. */
  retryAfterMs?: number | null;
}

export class ModelPullError extends Error {
  readonly resumable: boolean;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;

  constructor(
    readonly code: PullErrorCode,
    message: string,
    traits: PullFailureTraits = {},
  ) {
    super(message);
    const transient = code === 'UNREACHABLE' || code === 'INTERRUPTED';
    this.resumable = traits.resumable ?? transient;
    this.retryable = traits.retryable ?? transient;
    this.retryAfterMs = traits.retryAfterMs ?? null;
  }
}

const MAX_REDIRECTS = 5;
const DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS = 5;
const DEFAULT_RETRY_DELAY_MS = 1000;
const DEFAULT_RETRY_AFTER_MAX_MS = 120_000;
/** The doubling back-off stops growing here. */
const MAX_BACKOFF_MS = 60_000;
/** Statuses that say "not now" rather than "not this file": the partial is kept and the request retried. */
const RETRY_LATER_STATUSES: ReadonlySet<number> = new Set([408, 429]);

/** The URL a model is fetched from: the mirror when one is configured, else its official origin. */
export function modelUrl(entry: ModelEntry, sourceBaseUrl?: string): string {
  const base = (sourceBaseUrl ?? entry.source.origin).replace(/\/+$/, '');
  return `${base}/${entry.source.path}`;
}

export async function pullModel(entry: ModelEntry, options: PullOptions): Promise<PullResult> {
  if (!entry.checksum)
    throw new ModelPullError(
      'NO_CHECKSUM',
      `no pinned checksum is known for '${entry.name}', so it is never downloaded unverified; ` +
        'install it by hand or add it with its checksum to MODELS_EXTRA_CATALOGUE',
    );
  const checksum = entry.checksum;
  const url = modelUrl(entry, options.sourceBaseUrl);
  const finalPath = path.resolve(options.modelsDir, entry.fileName);
  const existing = installedModelPath(options.modelsDir, entry.name, [entry]);
  if (existing)
    return {
      name: entry.name,
      path: existing,
      bytes: installedBytes(entry),
      url,
      checksum,
      alreadyInstalled: true,
      resumedFrom: 0,
      requests: 0,
    };

  // The download lands next to its final place (same file system, so the rename is atomic); an archive lands
  // in MODELS_DIR under its own name and only its member is moved into place.
  const downloadPath = entry.archive
    ? path.resolve(options.modelsDir, path.posix.basename(entry.source.path))
    : finalPath;
  const partial = `${downloadPath}.partial`;
  const freshInstall = {
    name: entry.name,
    path: finalPath,
    bytes: installedBytes(entry),
    url,
    checksum,
    alreadyInstalled: false,
  };
  // An archive kept by an earlier pull that could not unpack it is unpacked again, not downloaded again.
  if (entry.archive && (await isVerifiedDownload(downloadPath, entry.bytes, checksum))) {
    await installArchiveMember(entry, downloadPath, finalPath);
    return { ...freshInstall, resumedFrom: entry.bytes, requests: 0 };
  }
  const resumedFrom = sizeOf(partial);
  const requests = await downloadWithRetries(url, partial, entry, options);

  const actual = await hashFile(partial, checksum.algorithm);
  if (actual !== checksum.hex) {
    removeQuietly(partial);
    throw new ModelPullError(
      'CHECKSUM_MISMATCH',
      `${entry.name}: checksum mismatch for ${url}: expected ${checksum.algorithm} ${checksum.hex}, ` +
        `got ${actual}; deleted the download`,
    );
  }
  fsyncFile(partial);
  if (entry.archive) {
    // Verified: it keeps its own name until its member is installed, so a failed unpack costs no download.
    fs.renameSync(partial, downloadPath);
    await installArchiveMember(entry, downloadPath, finalPath);
  } else {
    fs.renameSync(partial, finalPath);
  }
  return { ...freshInstall, resumedFrom, requests };
}

/**
 * Requests until the partial file holds `entry.bytes` bytes; returns how many requests it took. Attempts that
 * add bytes are retried at once and without limit; `maxAttemptsWithoutProgress` in a row that add none end it.
 */
async function downloadWithRetries(
  url: string,
  partial: string,
  entry: ModelEntry,
  options: PullOptions,
): Promise<number> {
  const maxWithoutProgress = options.maxAttemptsWithoutProgress ?? DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS;
  let requests = 0;
  let withoutProgress = 0;
  let reached = false;
  for (;;) {
    requests += 1;
    const before = sizeOf(partial);
    let failure: ModelPullError | null = null;
    try {
      await downloadOnce(url, partial, entry.bytes, options);
    } catch (error) {
      failure = asPullError(error);
    }
    const size = sizeOf(partial);
    if (!failure) {
      if (size === entry.bytes) return requests;
      // A body that ended cleanly but short (no Content-Length, connection closed): resume like a cut.
      failure = new ModelPullError(
        'INTERRUPTED',
        `${url}: the body ended after ${size} of ${entry.bytes} bytes`,
      );
    }
    // Only UNREACHABLE comes before any answer: a source that answered once is worth trying again.
    reached ||= failure.code !== 'UNREACHABLE';
    if (!failure.retryable || !reached) throw leaveBehind(failure, partial);
    withoutProgress = size > before ? 0 : withoutProgress + 1;
    if (withoutProgress === 0) continue;
    if (withoutProgress >= maxWithoutProgress) {
      failure.message += ` (${withoutProgress} attempts in a row added no bytes)`;
      throw leaveBehind(failure, partial);
    }
    const waitMs = retryWaitMs(failure, withoutProgress, options);
    options.onRetry?.({ reason: failure.message, waitMs, attemptsWithoutProgress: withoutProgress });
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

/** The server's Retry-After (capped) when it gave one, else retryDelayMs doubled per attempt without progress. */
function retryWaitMs(failure: ModelPullError, withoutProgress: number, options: PullOptions): number {
  const cap = options.retryAfterMaxMs ?? DEFAULT_RETRY_AFTER_MAX_MS;
  if (failure.retryAfterMs !== null) return Math.min(failure.retryAfterMs, cap);
  const base = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  return Math.min(base * 2 ** (withoutProgress - 1), MAX_BACKOFF_MS);
}

/**
 * Retry-After as milliseconds from `now`: delay-seconds or an HTTP date (RFC 9110 §10.2.3); a date in the past
 * is 0. Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (text === '' || !/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** One request (after redirects): appends to the partial file on 206, starts it over on 200. */
async function downloadOnce(
  url: string,
  partial: string,
  expectedBytes: number,
  options: PullOptions,
): Promise<void> {
  let offset = sizeOf(partial);
  if (offset > expectedBytes) {
    removeQuietly(partial);
    offset = 0;
  }
  if (offset === expectedBytes) return; // complete already (e.g. cut right after the last byte): just verify
  const response = await requestFollowingRedirects(new URL(url), offset, options);
  const status = response.statusCode ?? 0;
  if (status === 416 && offset > 0) {
    // The server says our offset is past its file: the partial cannot be a prefix of it. Start over.
    discard(response);
    removeQuietly(partial);
    throw new ModelPullError('INTERRUPTED', `${url}: the server refused to resume at byte ${offset}`);
  }
  if (status === 404) {
    discard(response);
    throw new ModelPullError('NOT_FOUND', `not found: ${url} answered HTTP 404`);
  }
  if (status !== 200 && status !== 206) {
    discard(response);
    // "Not now" (408, 429, 5xx) or a refused ranged request (403: an expired signed CDN URL, or a CDN that
    // rate-limits with 403): the bytes we have are still right, so they are kept and the request tried again.
    const later = RETRY_LATER_STATUSES.has(status) || status >= 500 || (status === 403 && offset > 0);
    throw new ModelPullError('HTTP_ERROR', `${url} answered HTTP ${status}`, {
      resumable: later,
      retryable: later,
      retryAfterMs: later ? parseRetryAfter(headerText(response.headers['retry-after'])) : null,
    });
  }
  let start = 0;
  if (status === 206) {
    const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(response.headers['content-range'] ?? '');
    if (!range || Number(range[1]) !== offset) {
      discard(response);
      removeQuietly(partial);
      throw new ModelPullError(
        'INTERRUPTED',
        `${url}: the server resumed at the wrong place; starting over next time`,
      );
    }
    start = offset;
  }
  // 200 to a ranged request: the server ignores Range and sends the whole file, so the partial starts over.
  const total = start + Number(response.headers['content-length'] ?? NaN);
  if (Number.isFinite(total) && total !== expectedBytes) {
    discard(response);
    removeQuietly(partial);
    throw new ModelPullError(
      'SIZE_MISMATCH',
      `${url} serves ${total} bytes, the pinned size is ${expectedBytes}: not the pinned file; deleted the download`,
    );
  }
  fs.mkdirSync(path.dirname(partial), { recursive: true });
  let received = start;
  // Each chunk is written before the next is taken, so a cut loses nothing already received: the partial
  // holds every byte counted, and the next request resumes exactly there.
  const fd = fs.openSync(partial, start > 0 ? 'a' : 'w');
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (received + chunk.length > expectedBytes) {
        done(new ModelPullError('SIZE_MISMATCH', `${url} sent more than the pinned ${expectedBytes} bytes`));
        return;
      }
      try {
        fs.writeSync(fd, chunk);
      } catch (error) {
        done(error as Error);
        return;
      }
      received += chunk.length;
      options.onProgress?.({ received, total: expectedBytes });
      done();
    },
  });
  try {
    await pipeline(response, sink);
  } catch (error) {
    if (error instanceof ModelPullError) {
      removeQuietly(partial);
      throw error;
    }
    throw new ModelPullError(
      'INTERRUPTED',
      `the connection to ${new URL(url).host} was cut after ${received} of ${expectedBytes} bytes (${describe(error)})`,
    );
  } finally {
    fs.closeSync(fd);
  }
}

async function requestFollowingRedirects(
  url: URL,
  offset: number,
  options: PullOptions,
): Promise<http.IncomingMessage> {
  let current = url;
  for (let redirects = 0; ; redirects += 1) {
    const response = await request(current, offset, options);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (![301, 302, 303, 307, 308].includes(status) || !location) return response;
    discard(response);
    if (redirects === MAX_REDIRECTS)
      throw new ModelPullError('TOO_MANY_REDIRECTS', `${url.href}: more than ${MAX_REDIRECTS} redirects`);
    // Hugging Face answers with a relative Location for renamed repositories and an absolute CDN URL for files.
    current = new URL(location, current);
  }
}

function request(url: URL, offset: number, options: PullOptions): Promise<http.IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.reject(new ModelPullError('HTTP_ERROR', `${url.href}: only http and https are supported`));
  let proxy: URL | null;
  try {
    proxy = proxyFor(url, options.proxy ?? {});
  } catch (error) {
    return Promise.reject(new ModelPullError('BAD_PROXY', (error as Error).message));
  }
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:';
    const headers: Record<string, string> = { 'user-agent': 'stt-service-models-pull', accept: '*/*' };
    if (offset > 0) headers.range = `bytes=${offset}-`;
    const via = proxy ? ` through proxy ${proxy.host}` : '';
    const unreachable = (why: string): ModelPullError =>
      new ModelPullError('UNREACHABLE', `cannot reach ${url.host}${via}: ${why}`);
    // Name lookup, TCP, the proxy's tunnel and TLS all count as connecting.
    const connecting = new AbortController();
    let req: http.ClientRequest | null = null;
    const connectTimer = setTimeout(() => {
      const timedOut = unreachable(`no connection within ${options.connectTimeoutMs} ms`);
      connecting.abort(timedOut);
      req?.destroy(timedOut);
    }, options.connectTimeoutMs);
    const fail = (error: unknown): void => {
      clearTimeout(connectTimer);
      const reason: unknown = connecting.signal.aborted ? connecting.signal.reason : error;
      reject(reason instanceof ModelPullError ? reason : unreachable(describe(reason)));
    };
    /** `target` null: the options alone say where the request goes (the plain-http proxy case). */
    const send = (target: URL | null, requestOptions: https.RequestOptions): void => {
      const options_: https.RequestOptions = {
        ...requestOptions,
        headers: { ...headers, ...requestOptions.headers },
      };
      const client = secure ? https : http;
      const current = target ? client.get(target, options_) : client.get(options_);
      req = current;
      current.on('socket', (socket) => {
        socket.once(secure ? 'secureConnect' : 'connect', () => {
          clearTimeout(connectTimer);
          socket.setTimeout(options.idleTimeoutMs, () =>
            current.destroy(new Error(`nothing received for ${options.idleTimeoutMs} ms`)),
          );
        });
      });
      current.on('response', (response) => {
        clearTimeout(connectTimer);
        resolve(response);
      });
      current.on('error', fail);
    };
    if (!proxy) {
      // No keep-alive agent: one socket per request, so the connect timer always sees a fresh connect.
      send(url, { agent: false });
    } else if (!secure) {
      // Plain http through a proxy: the request goes to the proxy with the absolute URL as its target. Options
      // only, no URL argument: Node merges a URL's `hostname` over `host`, and the origin's name would win (the
      // CLI then resolved the origin itself and connected to it on the proxy's port; issue 31).
      send(null, {
        hostname: proxy.hostname,
        port: proxy.port || 80,
        path: url.href,
        agent: false,
        headers: { host: url.host, ...proxyAuthorization(proxy) },
      });
    } else {
      // https through a proxy: a CONNECT tunnel, then TLS to the origin over it (verified as without a proxy).
      const tunnelProxy = proxy;
      openTunnel(tunnelProxy, url, connecting.signal).then(
        (socket) =>
          send(url, {
            createConnection: () =>
              tls.connect({
                socket,
                host: url.hostname,
                // SNI takes host names only (RFC 6066); an IP address is still checked against the certificate.
                ...(isIP(url.hostname) ? {} : { servername: url.hostname }),
              }),
          }),
        fail,
      );
    }
  });
}

/**
 * Unpacks the verified archive's member, verifies it and moves it into place; the archive is removed once the
 * member is installed. When tar cannot unpack it (bzip2 missing, the usual case on slim images) the archive
 * stays where it is, so the next pull unpacks it without downloading it again.
 */
async function installArchiveMember(
  entry: ModelEntry,
  archivePath: string,
  finalPath: string,
): Promise<void> {
  const archive = entry.archive!;
  const scratch = fs.mkdtempSync(path.join(path.dirname(archivePath), `.extract-${entry.name}-`));
  try {
    try {
      await promisify(execFile)('tar', ['-xjf', archivePath, '-C', scratch, '--', archive.member]);
    } catch (error) {
      throw new ModelPullError(
        'EXTRACT_FAILED',
        `${entry.name}: cannot unpack ${archive.member} from ${archivePath} (${describe(error).trim()}); ` +
          'a .tar.bz2 needs tar and bzip2 on the PATH (Debian: apt-get install bzip2, or ' +
          'scripts/install-system-deps.sh); the verified archive is kept, so models:pull unpacks it without ' +
          'downloading it again',
      );
    }
    const member = path.join(scratch, archive.member);
    const actual = await hashFile(member, archive.checksum.algorithm);
    if (actual !== archive.checksum.hex) {
      removeQuietly(archivePath);
      throw new ModelPullError(
        'CHECKSUM_MISMATCH',
        `${entry.name}: ${archive.member} in the verified archive has ${archive.checksum.algorithm} ${actual}, ` +
          `expected ${archive.checksum.hex}; deleted it`,
      );
    }
    fs.mkdirSync(path.dirname(finalPath), { recursive: true });
    fsyncFile(member);
    fs.renameSync(member, finalPath);
    removeQuietly(archivePath);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** A file of the pinned size whose checksum matches (an archive kept after a failed unpack). */
async function isVerifiedDownload(file: string, bytes: number, checksum: ModelChecksum): Promise<boolean> {
  if (sizeOf(file) !== bytes) return false;
  return (await hashFile(file, checksum.algorithm)) === checksum.hex;
}

function leaveBehind(error: ModelPullError, partial: string): ModelPullError {
  const size = sizeOf(partial);
  if (error.resumable && size > 0) {
    error.message += `; kept ${size} bytes in ${partial}, run models:pull again to resume`;
  } else {
    removeQuietly(partial);
  }
  return error;
}

/** Drains a response we do not use; a cut connection on it must not surface as an unhandled error. */
function discard(response: http.IncomingMessage): void {
  response.on('error', () => undefined);
  response.resume();
}

function asPullError(error: unknown): ModelPullError {
  return error instanceof ModelPullError ? error : new ModelPullError('INTERRUPTED', describe(error));
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const message = (error as Error).message ?? String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

async function hashFile(file: string, algorithm: ModelChecksum['algorithm']): Promise<string> {
  const hash = createHash(algorithm);
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** The rename must not expose a file whose bytes are still only in the page cache. */
function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function removeQuietly(file: string): void {
  fs.rmSync(file, { force: true });
}
