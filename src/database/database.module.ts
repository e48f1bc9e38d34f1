import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseConfig } from './database.config';
import { databaseOptions, SERVICE_QUERY_TIMEOUT_MS } from './database-options';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [DatabaseConfig],
      useFactory: (config: DatabaseConfig) => ({
        ...databaseOptions(config, { queryTimeoutMs: SERVICE_QUERY_TIMEOUT_MS }),
        retryAttempts: 3,
        retryDelay: 1000,
      }),
    }),
  ],
})
export class DatabaseModule {}
