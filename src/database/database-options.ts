import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from './database.config';
import { ENTITIES } from './entities';

/** Compiled migrations live in dist/migrations; under ts-jest the TypeScript sources are loaded instead. */
function migrationsGlob(): string {
  const runningFromSource = __filename.endsWith('.ts');
  return runningFromSource
    ? join(__dirname, '..', '..', 'migrations', '*.ts')
    : join(__dirname, '..', 'migrations', '*.js');
}

/**
 * The service's statements are short: while PostgreSQL hangs (connections open, no answer), a request gets
 * its 503 within this bound instead of waiting. Migrations (the CLI) keep the longer default.
 */
export const SERVICE_QUERY_TIMEOUT_MS = 10_000;
const MIGRATION_QUERY_TIMEOUT_MS = 30_000;

export function databaseOptions(
  config: DatabaseConfig,
  { queryTimeoutMs = MIGRATION_QUERY_TIMEOUT_MS }: { queryTimeoutMs?: number } = {},
): DataSourceOptions {
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
      query_timeout: queryTimeoutMs,
    },
  };
}
