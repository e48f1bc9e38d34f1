import { Client } from 'pg';
import { DataSource } from 'typeorm';
import type { DatabaseConfig } from './database.config';
import { databaseOptions } from './database-options';

/** Creates the database named in DATABASE_URL when it does not exist yet (fresh machines, test runs). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

async function withDataSource<T>(
  config: DatabaseConfig,
  work: (dataSource: DataSource) => Promise<T>,
): Promise<T> {
  const dataSource = new DataSource(databaseOptions(config));
  await dataSource.initialize();
  if (dataSource.migrations.length === 0) {
    await dataSource.destroy();
    throw new Error(
      `No migrations found (${JSON.stringify(dataSource.options.migrations)}); build them with \`npm run build\``,
    );
  }
  try {
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

export async function runMigrations(config: DatabaseConfig): Promise<string[]> {
  await ensureDatabase(config.DATABASE_URL);
  return withDataSource(config, async (dataSource) =>
    (await dataSource.runMigrations({ transaction: 'each' })).map((migration) => migration.name),
  );
}

/**
 * Drift check: after all migrations, the SQL TypeORM would still need to match the entities.
 * Empty means entities and migrations agree.
 */
export async function pendingSchemaChanges(
  config: DatabaseConfig,
): Promise<{ up: string[]; down: string[] }> {
  await runMigrations(config);
  return withDataSource(config, async (dataSource) => {
    const sql = await dataSource.driver.createSchemaBuilder().log();
    return {
      up: sql.upQueries.map((query) => query.query),
      down: sql.downQueries.map((query) => query.query).reverse(),
    };
  });
}

function quote(query: string): string {
  return /[`\\]|\$\{/.test(query) ? JSON.stringify(query) : `\`${query}\``;
}

/** Source of a new migration class holding the pending changes (for developers; committed, never edited). */
export function migrationSource(
  name: string,
  timestamp: number,
  changes: { up: string[]; down: string[] },
): string {
  const className = `${name.replace(/[^A-Za-z0-9]/g, '')}${timestamp}`;
  const lines = (queries: string[]) =>
    queries.map((query) => `    await queryRunner.query(${quote(query)});`).join('\n');
  return `import { MigrationInterface, QueryRunner } from 'typeorm';

export class ${className} implements MigrationInterface {
  name = '${className}';

  public async up(queryRunner: QueryRunner): Promise<void> {
${lines(changes.up)}
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
${lines(changes.down)}
  }
}
`;
}
