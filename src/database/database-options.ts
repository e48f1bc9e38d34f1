import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { ENTITIES } from './entities';

/** Compiled migrations live in dist/migrations; under ts-jest the TypeScript sources are loaded instead. */
function migrationsGlob(): string {
  const runningFromSource = __filename.endsWith('.ts');
  return runningFromSource
    ? join(__dirname, '..', '..', 'migrations', '*.ts')
    : join(__dirname, '..', 'migrations', '*.js');
}

export function databaseOptions(config: AppConfig): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.DATABASE_URL,
    entities: ENTITIES,
    migrations: [migrationsGlob()],
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    uuidExtension: 'pgcrypto',
    extra: {
      max: 10,
      connectionTimeoutMillis: 5000,
      // Fail queries fast while PostgreSQL is down instead of queueing them for minutes.
      query_timeout: 30000,
    },
  };
}
