import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { LocalDirectoryStorage } from './local-directory.storage';

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
