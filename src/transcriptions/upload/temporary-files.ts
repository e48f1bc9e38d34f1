import type { LocalCopy } from '../../storage/file-storage';
import type { FileStorage } from '../../storage/file-storage';
import type { StoredUpload } from './multipart-upload';

/**
 * What one upload leaves behind: the local copies ffprobe read, always removed, and the stored objects,
 * removed unless a job took them over. The intake's one place of clean-up (`removeAll`, when it ends).
 */
export class TemporaryFiles {
  private readonly localCopies: LocalCopy[] = [];
  private readonly unclaimedObjects = new Set<string>();

  constructor(private readonly storage: FileStorage) {}

  track(file: StoredUpload): StoredUpload {
    this.localCopies.push(file.local);
    this.unclaimedObjects.add(file.storageKey);
    return file;
  }

  /** The job that was created from `file` owns its stored object from now on. */
  handOver(file: StoredUpload): void {
    this.unclaimedObjects.delete(file.storageKey);
  }

  /** Never throws: clean-up must not replace the answer (or the refusal) the request already has. */
  async removeAll(): Promise<void> {
    await Promise.all([
      ...[...this.unclaimedObjects].map((key) => this.storage.delete(key).catch(() => undefined)),
      ...this.localCopies.map((local) => local.release().catch(() => undefined)),
    ]);
  }
}
