import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { FileStorage } from './file-storage';
import { LocalDirectoryStorage } from './local-directory.storage';

@Global()
@Module({
  providers: [
    {
      provide: FileStorage,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new LocalDirectoryStorage(config.STORAGE_DIR),
    },
  ],
  exports: [FileStorage],
})
export class StorageModule {}
