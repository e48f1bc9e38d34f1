import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import type { FileStorage } from '../../storage/file-storage';
import { parseMultipartUpload } from './multipart-upload';

/** A storage that records which objects the parser began to write (and drains them). */
function recordingStorage(): { storage: FileStorage; written: string[] } {
  const written: string[] = [];
  const storage = {
    writeWithLocalCopy: async (key: string, content: Readable) => {
      written.push(key);
      let bytes = 0;
      for await (const chunk of content) bytes += (chunk as Buffer).length;
      return { bytes, local: { path: `/nowhere/${key}`, release: async () => undefined } };
    },
    delete: async () => undefined,
  } as unknown as FileStorage;
  return { storage, written };
}

/** A request whose whole multipart body arrives in one chunk (as a small upload does). */
function requestOf(boundary: string, body: Buffer): IncomingMessage {
  const request = new PassThrough() as unknown as IncomingMessage;
  request.headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  setImmediate(() => (request as unknown as PassThrough).end(body));
  return request;
}

describe('parseMultipartUpload', () => {
  it('stores no part that busboy emits after a refusal (fuzz seed 1696953913: a malformed first part, then a file)', async () => {
    const boundary = 'fuzzboundary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="\t\u0010.wav"\r\n\r\n`,
      ),
      Buffer.alloc(4096, 1),
      Buffer.from(
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="second.wav"\r\n` +
          `Content-Type: video/mp4\r\n\r\n`,
      ),
      Buffer.alloc(2048, 7),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const { storage, written } = recordingStorage();
    await expect(parseMultipartUpload(requestOf(boundary, body), storage)).rejects.toMatchObject({
      message: expect.stringMatching(/malformed/),
    });
    expect(written).toEqual([]);
  });

  it('stores the file part of a well-formed upload', async () => {
    const boundary = 'goodboundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nstandard\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`),
      Buffer.alloc(2048, 7),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const { storage, written } = recordingStorage();
    const parsed = await parseMultipartUpload(requestOf(boundary, body), storage);
    expect(parsed.fields).toEqual({ model: 'standard' });
    expect(parsed.file?.size).toBe(2048);
    expect(written).toHaveLength(1);
  });
});
