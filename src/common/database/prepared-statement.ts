import type { Pool, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * A read on every authenticated request's path (the API key by its hash, a job's state): named, so each pool
 * connection has PostgreSQL parse and plan it once and then only binds and runs it, and sent straight to the
 * pool TypeORM opened, without a query builder or entity mapping per call (docs/decisions.md, "Hot reads").
 * The name is the statement's identity on a connection: one name, one text, for the process's lifetime.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

export async function runPrepared<Row extends QueryResultRow>(
  dataSource: DataSource,
  statement: PreparedStatement,
  values: readonly unknown[],
): Promise<Row[]> {
  // TypeORM's PostgreSQL driver holds its pg Pool as `master` (the service configures no replicas).
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const result = await pool.query<Row>({ name: statement.name, text: statement.text, values: [...values] });
  return result.rows;
}
