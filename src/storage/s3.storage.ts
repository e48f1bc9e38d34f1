import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { OnModuleDestroy } from '@nestjs/common';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStorage, type LocalCopy } from './file-storage';
import { assertSafeStorageKey } from './storage-key';
import { STORE_UNAVAILABLE } from '../common/problem/infrastructure-outage';

export interface S3StorageSettings {
  bucket: string;
  region: string;
  /** MinIO, an emulator or another S3-compatible endpoint; unset for AWS S3. */
  endpoint?: string;
  /** Both or neither; neither uses the AWS default credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/**
 * S3 answering 5xx (InternalError, ServiceUnavailable, SlowDown) or the SDK giving up on time is an outage of
 * the store, answered 503 service-unavailable like PostgreSQL and Redis outages (network errors such as
 * ECONNREFUSED already carry their code). Anything else (403, 404, a bad bucket) stays a bug: 500.
 */
export function asStoreOutage(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const candidate = error as { $metadata?: { httpStatusCode?: number }; name?: unknown; message?: unknown };
  const status = candidate.$metadata?.httpStatusCode;
  if ((status !== undefined && status >= 500) || candidate.name === 'TimeoutError') {
    return Object.assign(new Error(`The upload store is unavailable: ${String(candidate.message)}`), {
      code: STORE_UNAVAILABLE,
      cause: error,
    });
  }
  return error;
}

/** Multipart part size (S3's minimum) and parts in flight: at most ~20 MiB of one upload is held in memory. */
const PART_SIZE_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;

/**
 * Uploads in an S3-compatible bucket, so API and worker processes on different machines share them.
 * Writes stream through a multipart upload (never buffered whole); a failed or aborted write leaves no
 * object (the multipart upload is aborted; stores that keep orphaned parts need a lifecycle rule).
 * The engine and ffprobe read local files: workers download to a temporary file per job; uploads keep a
 * temporary copy written from the same stream, so the API never downloads what it has just received.
 */
export class S3Storage extends FileStorage implements OnModuleDestroy {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: S3StorageSettings) {
    super();
    this.bucket = settings.bucket;
    const config: S3ClientConfig = {
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      // Checksums only where S3 requires them: many S3-compatible stores refuse the SDK's default
      // aws-chunked CRC trailers. Integrity of an upload is covered by our own SHA-256 of the bytes.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    if (settings.accessKeyId && settings.secretAccessKey) {
      config.credentials = {
        accessKeyId: settings.accessKeyId,
        secretAccessKey: settings.secretAccessKey,
      };
    }
    this.client = new S3Client(config);
  }

  async write(key: string, content: Readable): Promise<number> {
    return this.upload(assertSafeStorageKey(key), content, null);
  }

  async writeWithLocalCopy(key: string, content: Readable): Promise<{ bytes: number; local: LocalCopy }> {
    assertSafeStorageKey(key);
    // An error while the folder is being made must not go unhandled; the pipeline reports it.
    content.on('error', () => undefined);
    const dir = await mkdtemp(join(tmpdir(), 'stt-upload-'));
    const local: LocalCopy = {
      path: join(dir, 'upload'),
      release: () => rm(dir, { recursive: true, force: true }),
    };
    try {
      const bytes = await this.upload(key, content, createWriteStream(local.path, { flags: 'wx' }));
      return { bytes, local };
    } catch (error) {
      await local.release();
      throw error;
    }
  }

  async withLocalFile<T>(key: string, use: (path: string) => Promise<T>): Promise<T> {
    assertSafeStorageKey(key);
    const dir = await mkdtemp(join(tmpdir(), 'stt-object-'));
    try {
      const path = join(dir, 'object');
      await pipeline(await this.body(key), createWriteStream(path, { flags: 'wx' }));
      return await use(path);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async size(key: string): Promise<number> {
    const head = await this.client
      .send(new HeadObjectCommand({ Bucket: this.bucket, Key: assertSafeStorageKey(key) }))
      .catch((error: unknown) => {
        throw asStoreOutage(error);
      });
    if (head.ContentLength === undefined) throw new Error(`S3 stated no size for ${key}`);
    return head.ContentLength;
  }

  async readRange(key: string, start: number, end: number): Promise<Readable> {
    return this.body(key, `bytes=${start}-${end}`).catch((error: unknown) => {
      throw asStoreOutage(error);
    });
  }

  /** The object's bytes (or one `Range` of them) as a stream, straight from the bucket. */
  private async body(key: string, range?: string): Promise<Readable> {
    const object = await this.client.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: assertSafeStorageKey(key), Range: range }),
    );
    if (!(object.Body instanceof Readable)) throw new Error(`S3 returned no body for ${key}`);
    return object.Body;
  }

  async delete(key: string): Promise<void> {
    await this.client
      .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: assertSafeStorageKey(key) }))
      .catch((error: unknown) => {
        throw asStoreOutage(error);
      });
  }

  /** Whether an object exists (used by the specs; the service itself never needs to ask). */
  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: assertSafeStorageKey(key) }));
      return true;
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
        return false;
      throw error;
    }
  }

  /**
   * The bucket takes an object with these credentials: a 2-byte object written and removed, with the
   * permissions uploads need anyway (bucket-level calls such as HeadBucket need s3:ListBucket, which an
   * upload-only policy may not grant, and some S3-compatible stores do not answer them).
   */
  async checkReady(): Promise<void> {
    const key = `readiness-probe/${hostname()}-${process.pid}`;
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: 'ok' }));
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  onModuleDestroy(): void {
    this.client.destroy();
  }

  /**
   * Streams `content` into a multipart upload (and into `copy` when given) with backpressure from both.
   * Any failure aborts the upload and rejects with the first error (the content's own error first).
   */
  private async upload(key: string, content: Readable, copy: WriteStream | null): Promise<number> {
    const body = new PassThrough();
    let bytes = 0;
    const fanOut = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        let pending = copy ? 2 : 1;
        let settled = false;
        const done = (error?: Error | null): void => {
          if (settled) return;
          if (error) {
            settled = true;
            callback(error);
          } else if (--pending === 0) {
            settled = true;
            callback();
          }
        };
        body.write(chunk, done);
        copy?.write(chunk, done);
      },
      final(callback) {
        body.end();
        if (copy) copy.end(() => callback());
        else callback();
      },
    });
    copy?.on('error', (error) => fanOut.destroy(error));
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: PART_SIZE_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    const uploaded = upload.done();
    // A store failure stops the stream too, so the writer is never left waiting on a dead upload.
    uploaded.catch((error: unknown) =>
      fanOut.destroy(error instanceof Error ? error : new Error(String(error))),
    );
    try {
      await pipeline(content, fanOut);
      await uploaded;
      return bytes;
    } catch (error) {
      body.destroy();
      copy?.destroy();
      await upload.abort().catch(() => undefined);
      await uploaded.catch(() => undefined);
      // A body smaller than one part goes up as a single PUT that may have landed before the failure.
      await this.delete(key).catch(() => undefined);
      throw asStoreOutage(error);
    }
  }
}
