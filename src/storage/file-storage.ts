import type { Readable } from 'node:stream';

/**
 * Where uploads live. The local-directory adapter serves one machine (or a shared volume); an
 * S3-compatible adapter implements the same interface for API and worker processes on different machines.
 */
export abstract class FileStorage {
  /** Streams content in under `key`; resolves with the byte count once it is durably written. */
  abstract write(key: string, content: Readable): Promise<number>;
  /** A local path the engine can read (adapters for remote stores download to a temporary file). */
  abstract localPath(key: string): Promise<string>;
  /** Removes the object; a missing key is not an error. */
  abstract delete(key: string): Promise<void>;
}
