import type { FileStorage } from '../../storage/file-storage';
import type { StoredUpload } from './multipart-upload';
import { TemporaryFiles } from './temporary-files';

function storedUpload(storageKey: string, released: string[]): StoredUpload {
  return {
    storageKey,
    originalFileName: `${storageKey}.wav`,
    size: 1,
    sha256: '',
    head: Buffer.alloc(0),
    local: { path: `/tmp/${storageKey}`, release: async () => void released.push(storageKey) },
  };
}

describe('TemporaryFiles', () => {
  it('removes every stored object no job took, and every local copy', async () => {
    const deleted: string[] = [];
    const released: string[] = [];
    const storage = {
      delete: async (key: string) => {
        deleted.push(key);
        if (key === 'broken') throw new Error('storage unreachable');
      },
    } as unknown as FileStorage;
    const files = new TemporaryFiles(storage);
    const kept = files.track(storedUpload('kept', released));
    files.track(storedUpload('refused', released));
    files.track(storedUpload('broken', released));
    files.handOver(kept);
    await expect(files.removeAll()).resolves.toBeUndefined();
    expect({ deleted: deleted.sort(), released: released.sort() }).toEqual({
      deleted: ['broken', 'refused'],
      released: ['broken', 'kept', 'refused'],
    });
  });
});
