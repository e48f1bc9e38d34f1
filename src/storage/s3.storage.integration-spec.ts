import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { startS3Emulator, type S3Emulator } from '../../test/support/s3-emulator';
import { ProblemException } from '../common/problem/problem.exception';
import { parseMultipartUpload } from '../transcriptions/upload/multipart-upload';
import { S3Storage } from './s3.storage';

/** Against a real S3-protocol server on loopback (s3rver), not a mock of the SDK. */
describe('S3Storage', () => {
  let emulator: S3Emulator;
  let storage: S3Storage;
  let scratch: string;
  const originalTmpdir = process.env.TMPDIR;

  beforeAll(async () => {
    emulator = await startS3Emulator();
    storage = new S3Storage(emulator.storageSettings());
    // The adapter's temporary files go to os.tmpdir(): a folder of this suite, to see that none is left.
    scratch = mkdtempSync(join(tmpdir(), 'stt-s3-spec-'));
    process.env.TMPDIR = scratch;
  });
  afterAll(async () => {
    process.env.TMPDIR = originalTmpdir;
    storage.onModuleDestroy();
    await emulator.stop();
    rmSync(scratch, { recursive: true, force: true });
  });
  afterEach(() => expect(readdirSync(scratch)).toEqual([]));

  /** Bytes in 1 MiB chunks, each chunk a different fill so order mistakes show. */
  const payload = (mebibytes: number): Buffer =>
    Buffer.concat(Array.from({ length: mebibytes }, (_, index) => Buffer.alloc(1024 * 1024, index)));

  it('is ready while the bucket answers; names the failure for a bucket that does not exist (readiness probe)', async () => {
    await expect(storage.checkReady()).resolves.toBeUndefined();
    expect(await emulator.keys()).toEqual([]);
    const missingBucket = new S3Storage(emulator.storageSettings('no-such-bucket'));
    try {
      await expect(missingBucket.checkReady()).rejects.toThrow();
    } finally {
      missingBucket.onModuleDestroy();
    }
  });

  it('writes a small object in one request, reads it back through a temporary file, deletes it', async () => {
    const bytes = await storage.write('uploads/small', Readable.from([Buffer.from('hello s3')]));
    expect(bytes).toBe(8);
    expect(await storage.exists('uploads/small')).toBe(true);
    expect(await emulator.keys('uploads/')).toEqual(['uploads/small']);
    let seenPath = '';
    const text = await storage.withLocalFile('uploads/small', async (path) => {
      seenPath = path;
      return readFileSync(path, 'utf8');
    });
    expect(text).toBe('hello s3');
    expect(() => readFileSync(seenPath)).toThrow(/ENOENT/);
    await storage.delete('uploads/small');
    expect(await storage.exists('uploads/small')).toBe(false);
    await expect(storage.delete('uploads/small')).resolves.toBeUndefined();
  });

  it('streams a 12 MiB body as a multipart upload with a byte-identical local copy', async () => {
    const data = payload(12);
    const { bytes, local } = await storage.writeWithLocalCopy('uploads/multipart', Readable.from([data]));
    expect(bytes).toBe(data.length);
    expect(readFileSync(local.path).equals(data)).toBe(true);
    await local.release();
    await local.release();
    const roundTrip = await storage.withLocalFile('uploads/multipart', async (path) => readFileSync(path));
    expect(roundTrip.equals(data)).toBe(true);
    await storage.delete('uploads/multipart');
  });

  it('states the size and streams a byte range straight from the bucket (a ranged GET, no temporary file)', async () => {
    const data = payload(3);
    await storage.write('uploads/ranged', Readable.from([data]));
    expect(await storage.size('uploads/ranged')).toBe(data.length);
    const read = async (start: number, end: number): Promise<Buffer> => {
      const chunks: Buffer[] = [];
      for await (const chunk of await storage.readRange('uploads/ranged', start, end))
        chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    };
    // Across the 1 MiB fills, so a wrong offset shows.
    expect(
      (await read(1024 * 1024 - 5, 1024 * 1024 + 4)).equals(data.subarray(1024 * 1024 - 5, 1024 * 1024 + 5)),
    ).toBe(true);
    expect((await read(data.length - 1, data.length - 1)).equals(data.subarray(data.length - 1))).toBe(true);
    await expect(storage.size('uploads/never-written')).rejects.toThrow();
    await storage.delete('uploads/ranged');
  });

  it('removes the temporary file when the reader fails, and rejects for a missing object', async () => {
    await storage.write('uploads/reader-fails', Readable.from([Buffer.from('x')]));
    await expect(
      storage.withLocalFile('uploads/reader-fails', async () => {
        throw new Error('engine crashed');
      }),
    ).rejects.toThrow('engine crashed');
    await storage.delete('uploads/reader-fails');
    await expect(storage.withLocalFile('uploads/never-written', async () => 1)).rejects.toThrow();
  });

  it('a content stream that fails after several parts leaves no object and no local copy', async () => {
    const content = new PassThrough();
    const written = storage.writeWithLocalCopy('uploads/broken', content);
    // Fails once the storage has taken all 11 MB in (the stream drained), instead of after a guessed 300 ms.
    if (!content.write(payload(11))) await once(content, 'drain');
    content.destroy(new Error('client went away'));
    await expect(written).rejects.toThrow('client went away');
    expect(await storage.exists('uploads/broken')).toBe(false);
  });

  it('refuses keys that could escape the bucket prefix', async () => {
    await expect(storage.write('../etc/passwd', Readable.from([]))).rejects.toThrow(/Unsafe/);
    await expect(storage.delete('/absolute')).rejects.toThrow(/Unsafe/);
  });

  describe('multipart/form-data upload over the size limit', () => {
    let server: Server;
    let outcome: Promise<unknown>;

    beforeAll(async () => {
      server = createServer((request, response) => {
        outcome = parseMultipartUpload(request, storage, 3_000_000).then(
          (parsed) => parsed,
          (error: unknown) => error,
        );
        void outcome.then((result) => {
          response.statusCode = result instanceof ProblemException ? result.status : 200;
          response.end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('stops early with file-too-large and leaves no object and no local copy', async () => {
      const { port } = server.address() as AddressInfo;
      const boundary = 'limit-boundary';
      const status = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/',
            headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.write(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\n\r\n`,
        );
        // Chunked, no Content-Length: only the streaming limit can stop it. 8 MB are offered, 3 allowed.
        const chunk = payload(1);
        let sent = 0;
        const pump = (): void => {
          while (sent < 8) {
            sent += 1;
            if (!request.write(chunk)) return void request.once('drain', pump);
          }
          request.end(`\r\n--${boundary}--\r\n`);
        };
        pump();
      });
      expect(status).toBe(422);
      const result = await outcome;
      expect(result).toBeInstanceOf(ProblemException);
      expect((result as ProblemException).slug).toBe('file-too-large');
      // The abort and the cleanup run after the answer; give them a moment.
      const deadline = Date.now() + 5000;
      while ((await emulator.keys('uploads/')).length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await emulator.keys('uploads/')).toEqual([]);
      while (readdirSync(scratch).length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
  });
});
