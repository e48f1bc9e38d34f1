import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { databaseOptions } from '../../src/database/database-options';
import { ensureDatabase } from '../../src/database/migration-runner';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { testDatabaseUrl } from '../support/test-environment';
import { hashApiKey } from '../../src/auth/api-key.service';

/**
 * The Members migration upgrades a workspace as it was used before members existed (issue 32): its user becomes
 * its owner and its keys keep full rights (`admin`). Run on a database of its own, left at the migration before
 * (everything migrated, then the Members migration undone, so its `down` is exercised too); the service then
 * serves the upgraded workspace: the owner signs in with the owner's rights, the old key still manages webhooks.
 */
describe('Members migration on an existing single-user workspace', () => {
  const url = new URL(testDatabaseUrl());
  url.pathname = `/stt_members_migration_${randomUUID().slice(0, 8)}`;
  let dataSource: DataSource;
  let t: TestApp | undefined;

  beforeAll(async () => {
    await ensureDatabase(url.toString());
    dataSource = new DataSource(databaseOptions({ DATABASE_URL: url.toString() }));
    await dataSource.initialize();
  });
  afterAll(async () => {
    await t?.close();
    await dataSource.destroy();
    const admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${url.pathname.slice(1)}" WITH (FORCE)`);
    await admin.end();
  });

  it('makes the user owner and keeps the key at full rights; the service then honours both', async () => {
    await dataSource.runMigrations({ transaction: 'each' });
    // Undone down to and including Members: the schema as the service had it before members existed.
    for (;;) {
      const [last] = await dataSource.query<Array<{ name: string }>>(
        'SELECT name FROM schema_migrations ORDER BY timestamp DESC LIMIT 1',
      );
      await dataSource.undoLastMigration({ transaction: 'each' });
      if (/^Members\d+$/.test(last.name)) break;
    }
    const [{ exists }] = await dataSource.query<Array<{ exists: boolean }>>(
      `SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_name = 'workspace_members') AS exists`,
    );
    expect(exists).toBe(false);

    // A workspace as the service made them before: one user acting in it, one key.
    const [workspace] = await dataSource.query<Array<{ id: string }>>(
      `INSERT INTO workspaces (name, slug, balance_micro) VALUES ('Legacy', 'legacy-${randomUUID().slice(0, 6)}', 5000000) RETURNING id`,
    );
    const [user] = await dataSource.query<Array<{ id: string }>>(
      `INSERT INTO users (email, active_workspace_id) VALUES ('legacy-${randomUUID()}@example.com', $1) RETURNING id`,
      [workspace.id],
    );
    const apiKey = `svc_live_${randomUUID().replace(/-/g, '')}abcdefgh`;
    await dataSource.query(
      `INSERT INTO api_keys (workspace_id, user_id, prefix, key_hash) VALUES ($1, $2, $3, $4)`,
      [workspace.id, user.id, apiKey.slice(0, 12), hashApiKey(apiKey)],
    );

    await dataSource.runMigrations({ transaction: 'each' });
    expect(await dataSource.query(`SELECT workspace_id, user_id, role FROM workspace_members`)).toEqual([
      { workspace_id: workspace.id, user_id: user.id, role: 'owner' },
    ]);
    expect(await dataSource.query(`SELECT scopes, allowed_networks FROM api_keys`)).toEqual([
      { scopes: ['admin'], allowed_networks: null },
    ]);

    t = await startTestApp({ ROLE: 'api', DATABASE_URL: url.toString() });
    const owner = bearer(t.issueToken(user.id));
    const members = await t.http().get('/v1/workspace/members').set(owner);
    expect(members.body.data).toEqual([expect.objectContaining({ id: user.id, role: 'owner' })]);
    expect((await t.http().get('/v1/workspace/invitations').set(owner)).status).toBe(200);
    expect((await t.http().get('/v1/webhooks').set(bearer(apiKey))).status).toBe(200);
    expect((await t.http().get('/v1/audit-events').set(bearer(apiKey))).status).toBe(200);
  });
});
