import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { installedBytes, installedModelPath, type ModelChecksum, type ModelEntry } from './model-catalogue';

/**
 * Downloads one catalogue model into MODELS_DIR with Node's own http/https (no dependency):
 * `<file>.partial` is written first, resumed with `Range: bytes=N-`, hashed as a whole (resumed part included)
 * and renamed into place only when the pinned checksum matches.
 *
 * What is left behind on failure, and why:
 * - wrong checksum, wrong size, HTTP 404 or another 4xx: nothing (the source does not have this file, resuming
 *   it would only repeat the failure);
 * - cannot reach the source, a cut connection, an idle stall or a 5xx: the partial file only if it holds bytes,
 *   so the next `models:pull` resumes instead of starting over (multi-GB files on flaky links); an empty
 *   partial is removed, so a machine without network is left exactly as it was.
 */

export interface PullOptions {
  modelsDir: string;
  /** MODELS_SOURCE_URL: a mirror with the official path layout; unset → each model's official origin. */
  sourceBaseUrl?: string;
  /** Name lookup, TCP and TLS must finish within this; it keeps a machine without internet from hanging. */
  connectTimeoutMs: number;
  /** A connection that sends nothing for this long counts as cut. */
  idleTimeoutMs: number;
  /** Requests per pull; later ones resume after a cut connection that had made progress. */
  maxAttempts?: number;
  onProgress?: (progress: PullProgress) => void;
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
  | 'EXTRACT_FAILED';

export class ModelPullError extends Error {
  constructor(
    readonly code: PullErrorCode,
    message: string,
    /** The failure is transient (network, 5xx): bytes already downloaded are worth keeping for a resume. */
    readonly resumable = code === 'UNREACHABLE' || code === 'INTERRUPTED',
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 5;
const DEFAULT_MAX_ATTEMPTS = 3;

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
  const resumedFrom = sizeOf(partial);
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let requests = 0;
  for (;;) {
    requests += 1;
    const before = sizeOf(partial);
    try {
      await downloadOnce(url, partial, entry.bytes, options);
    } catch (error) {
      const failure = asPullError(error);
      // Retry at once only when this request changed the partial file (made progress, or reset it after the
      // server could not resume): a source that sends nothing is not hammered.
      const changed = sizeOf(partial) !== before;
      if (failure.code === 'INTERRUPTED' && changed && requests < maxAttempts) continue;
      throw leaveBehind(failure, partial);
    }
    const size = sizeOf(partial);
    // A body that ended cleanly but short (no Content-Length, connection closed): resume like a cut.
    if (size < entry.bytes && requests < maxAttempts && size > before) continue;
    if (size !== entry.bytes) {
      removeQuietly(partial);
      throw new ModelPullError(
        'SIZE_MISMATCH',
        `${entry.name}: the download from ${url} is ${size} bytes, the pinned size is ${entry.bytes}; deleted it`,
      );
    }
    break;
  }

  const actual = await hashFile(partial, checksum.algorithm);
  if (actual !== checksum.hex) {
    removeQuietly(partial);
    throw new ModelPullError(
      'CHECKSUM_MISMATCH',
      `${entry.name}: checksum mismatch for ${url}: expected ${checksum.algorithm} ${checksum.hex}, ` +
        `got ${actual}; deleted the download`,
    );
  }
  if (entry.archive) await installArchiveMember(entry, partial, finalPath);
  else {
    fsyncFile(partial);
    fs.renameSync(partial, finalPath);
  }
  return {
    name: entry.name,
    path: finalPath,
    bytes: installedBytes(entry),
    url,
    checksum,
    alreadyInstalled: false,
    resumedFrom,
    requests,
  };
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
    throw new ModelPullError('HTTP_ERROR', `${url} answered HTTP ${status}`, status >= 500);
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
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > expectedBytes) {
        done(new ModelPullError('SIZE_MISMATCH', `${url} sent more than the pinned ${expectedBytes} bytes`));
        return;
      }
      options.onProgress?.({ received, total: expectedBytes });
      done(null, chunk);
    },
  });
  try {
    await pipeline(response, counter, fs.createWriteStream(partial, { flags: start > 0 ? 'a' : 'w' }));
  } catch (error) {
    if (error instanceof ModelPullError) {
      removeQuietly(partial);
      throw error;
    }
    throw new ModelPullError(
      'INTERRUPTED',
      `the connection to ${new URL(url).host} was cut after ${received} of ${expectedBytes} bytes (${describe(error)})`,
    );
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
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { 'user-agent': 'stt-service-models-pull', accept: '*/*' };
    if (offset > 0) headers.range = `bytes=${offset}-`;
    // No keep-alive agent: one socket per request, so the connect timer below always sees a fresh connect.
    const req = client.get(url, { headers, agent: false });
    const unreachable = (why: string): ModelPullError =>
      new ModelPullError('UNREACHABLE', `cannot reach ${url.host}: ${why}`);
    const connectTimer = setTimeout(
      () => req.destroy(unreachable(`no connection within ${options.connectTimeoutMs} ms`)),
      options.connectTimeoutMs,
    );
    req.on('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        clearTimeout(connectTimer);
        socket.setTimeout(options.idleTimeoutMs, () =>
          req.destroy(new Error(`nothing received for ${options.idleTimeoutMs} ms`)),
        );
      });
    });
    req.on('response', (response) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    req.on('error', (error) => {
      clearTimeout(connectTimer);
      reject(error instanceof ModelPullError ? error : unreachable(describe(error)));
    });
  });
}

/** Verifies the archive's member before it replaces anything; the archive itself is not kept. */
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
        `${entry.name}: cannot unpack ${archive.member}: ${describe(error)}`,
      );
    }
    const member = path.join(scratch, archive.member);
    const actual = await hashFile(member, archive.checksum.algorithm);
    if (actual !== archive.checksum.hex)
      throw new ModelPullError(
        'CHECKSUM_MISMATCH',
        `${entry.name}: ${archive.member} in the verified archive has ${archive.checksum.algorithm} ${actual}, ` +
          `expected ${archive.checksum.hex}; deleted it`,
      );
    fs.mkdirSync(path.dirname(finalPath), { recursive: true });
    fsyncFile(member);
    fs.renameSync(member, finalPath);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
    removeQuietly(archivePath);
  }
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
