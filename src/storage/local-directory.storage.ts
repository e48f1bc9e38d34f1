import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStorage, type LocalCopy } from './file-storage';
import { assertSafeStorageKey } from './storage-key';

export class LocalDirectoryStorage extends FileStorage {
  private readonly root: string;

  constructor(root: string) {
    super();
    this.root = resolve(root);
  }

  async write(key: string, content: Readable): Promise<number> {
    const path = this.pathOf(key);
    // An error while the folder is being made must not go unhandled; pipeline reports it below.
    content.on('error', () => undefined);
    await mkdir(dirname(path), { recursive: true });
    let bytes = 0;
    content.on('data', (chunk: Buffer) => (bytes += chunk.length));
    try {
      await pipeline(content, createWriteStream(path, { flags: 'wx' }));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return bytes;
  }

  /** The stored file is already local: releasing it removes nothing. */
  async writeWithLocalCopy(key: string, content: Readable): Promise<{ bytes: number; local: LocalCopy }> {
    const bytes = await this.write(key, content);
    return { bytes, local: { path: this.pathOf(key), release: async () => undefined } };
  }

  async withLocalFile<T>(key: string, use: (path: string) => Promise<T>): Promise<T> {
    return use(this.pathOf(key));
  }

  async size(key: string): Promise<number> {
    return (await stat(this.pathOf(key))).size;
  }

  async readRange(key: string, start: number, end: number): Promise<Readable> {
    const stream = createReadStream(this.pathOf(key), { start, end });
    // Opened before it is handed over, so a missing file rejects here rather than in the reader's pipeline.
    await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
    return stream;
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /** Writes and removes a small file: a missing, read-only or full directory fails (even for root). */
  async checkReady(): Promise<void> {
    const probe = join(this.root, `.ready-probe-${process.pid}`);
    await mkdir(this.root, { recursive: true });
    await writeFile(probe, 'ok');
    await rm(probe, { force: true });
  }

  private pathOf(key: string): string {
    return join(this.root, assertSafeStorageKey(key));
  }
}
