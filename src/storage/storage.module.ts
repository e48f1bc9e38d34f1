import { Global, Module } from '@nestjs/common';
import { StorageConfig } from './storage.config';
import { FileStorage } from './file-storage';
import { LocalDirectoryStorage } from './local-directory.storage';
import { S3Storage } from './s3.storage';

/** The upload store chosen by STORAGE_DRIVER: a local directory, or an S3-compatible bucket. */
export function createFileStorage(config: StorageConfig): FileStorage {
  switch (config.STORAGE_DRIVER) {
    case 'local':
      return new LocalDirectoryStorage(config.STORAGE_DIR);
    case 's3':
      return new S3Storage({
        bucket: config.S3_BUCKET ?? '',
        region: config.S3_REGION,
        endpoint: config.S3_ENDPOINT,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
      });
  }
}

@Global()
@Module({
  providers: [{ provide: FileStorage, inject: [StorageConfig], useFactory: createFileStorage }],
  exports: [FileStorage],
})
export class StorageModule {}
