import { S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3StorageSettings } from '../../src/storage/s3.storage';

interface S3rverOptions {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: Array<{ name: string }>;
}
interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
// @20minutes/s3rver (a maintained fork of s3rver) ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('@20minutes/s3rver') as new (options: S3rverOptions) => S3rverInstance;

/** How s3rver names an object's file: `<key>._S3rver_object`. */
const OBJECT_SUFFIX = '._S3rver_object';

/** s3rver's built-in account. */
const ACCESS_KEY = 'S3RVER';

export interface S3Emulator {
  endpoint: string;
  bucket: string;
  /** The service settings that point STORAGE_DRIVER=s3 at this emulator. */
  env: Record<string, string>;
  /** The same, for an S3Storage built directly (another bucket name to see a missing bucket). */
  storageSettings(bucketName?: string): S3StorageSettings;
  client: S3Client;
  /** Every object key in the bucket under a prefix. */
  keys(prefix?: string): Promise<string[]>;
  stop(): Promise<void>;
}

/** A real S3-protocol server on loopback (files in a temporary folder), with one bucket. */
export async function startS3Emulator(bucket = 'stt-uploads'): Promise<S3Emulator> {
  const directory = mkdtempSync(join(tmpdir(), 'stt-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: ACCESS_KEY },
  });
  return {
    endpoint,
    bucket,
    env: {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: ACCESS_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    },
    client,
    storageSettings: (bucketName = bucket) => ({
      bucket: bucketName,
      region: 'us-east-1',
      endpoint,
      accessKeyId: ACCESS_KEY,
      secretAccessKey: ACCESS_KEY,
      forcePathStyle: true,
    }),
    keys: async (prefix = '') => {
      // Read from s3rver's folder: it refuses the SDK's signature on bucket-level requests (ListObjects),
      // while object requests, which are all the service makes, are verified as by S3.
      const root = join(directory, bucket);
      return readdirSync(root, { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith(OBJECT_SUFFIX))
        .map((file) => file.slice(0, -OBJECT_SUFFIX.length))
        .filter((key) => key.startsWith(prefix))
        .sort();
    },
    stop: async () => {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
