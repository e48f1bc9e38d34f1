import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { LocalDirectoryStorage } from './local-directory.storage';

const buffer = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

describe('LocalDirectoryStorage', () => {
  let root: string;
  let storage: LocalDirectoryStorage;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'stt-local-storage-'));
    storage = new LocalDirectoryStorage(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('the local copy of an upload is the stored file itself; releasing it keeps the file', async () => {
    const { bytes, local } = await storage.writeWithLocalCopy(
      'uploads/a',
      Readable.from([Buffer.from('abc')]),
    );
    expect(bytes).toBe(3);
    expect(local.path).toBe(join(root, 'uploads/a'));
    await local.release();
    expect(await storage.withLocalFile('uploads/a', async (path) => readFileSync(path, 'utf8'))).toBe('abc');
  });

  it('states the size and streams an inclusive byte range; a missing key rejects', async () => {
    await storage.write('uploads/r', Readable.from([Buffer.from('0123456789')]));
    expect(await storage.size('uploads/r')).toBe(10);
    expect((await buffer(await storage.readRange('uploads/r', 2, 5))).toString()).toBe('2345');
    expect((await buffer(await storage.readRange('uploads/r', 9, 9))).toString()).toBe('9');
    await expect(storage.size('uploads/none')).rejects.toThrow(/ENOENT/);
    await expect(storage.readRange('uploads/none', 0, 1)).rejects.toThrow(/ENOENT/);
  });

  it('a content stream that fails leaves no file', async () => {
    const content = new PassThrough();
    const written = storage.write('uploads/broken', content);
    content.write(Buffer.alloc(1024));
    setImmediate(() => content.destroy(new Error('client went away')));
    await expect(written).rejects.toThrow('client went away');
    expect(existsSync(join(root, 'uploads/broken'))).toBe(false);
  });

  it('refuses keys outside its folder', async () => {
    await expect(storage.withLocalFile('../outside', async () => 1)).rejects.toThrow(/Unsafe/);
  });
});
