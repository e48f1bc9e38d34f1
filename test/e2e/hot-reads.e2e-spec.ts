import { DataSource } from 'typeorm';
import { hashApiKey, KEY_BY_HASH } from '../../src/auth/api-key.service';
import { DatabaseConfig } from '../../src/database/database.config';
import { databaseOptions } from '../../src/database/database-options';
import { runPrepared } from '../../src/common/database/prepared-statement';
import { STATE_IN_WORKSPACE } from '../../src/transcriptions/transcription.repository';
import { insertTranscription } from '../support/transcriptions';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

/**
 * The reads every authenticated status poll makes (the API key by its hash, the job's state) are prepared
 * statements (src/common/database/prepared-statement.ts): PostgreSQL parses each once per connection and then only runs
 * it. Checked on a one-connection pool against the real schema, so the connection that ran them is the one asked.
 */
describe('Hot reads as prepared statements', () => {
  let t: TestApp;
  let single: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    single = new DataSource({
      ...databaseOptions(t.config.get(DatabaseConfig)),
      extra: { max: 1 },
    });
    await single.initialize();
  });
  afterAll(async () => {
    await single?.destroy();
    await t?.close();
  });

  /** What PostgreSQL holds prepared on the pool's one connection under `name`: parsed once, run how often. */
  async function preparedOnTheConnection(name: string): Promise<{ runs: number; statement: string } | null> {
    const rows = await runPrepared<{ runs: number; statement: string }>(
      single,
      {
        name: 'test_prepared_statements',
        text: `SELECT (generic_plans + custom_plans)::int AS runs, statement
                 FROM pg_prepared_statements WHERE name = $1`,
      },
      [name],
    );
    return rows[0] ?? null;
  }

  it('reads an API key by its hash: parsed once, run on each call, every field authentication needs', async () => {
    const workspace = await t.createWorkspace();
    for (let call = 0; call < 3; call += 1) {
      const [key] = await runPrepared<Record<string, unknown>>(single, KEY_BY_HASH, [
        hashApiKey(workspace.apiKey),
      ]);
      expect(key).toMatchObject({
        workspaceId: workspace.workspaceId,
        userId: workspace.userId,
        revokedOn: null,
        expiresOn: null,
        allowedNetworks: null,
      });
      expect(Array.isArray(key.scopes)).toBe(true);
      expect(key).toHaveProperty('lastUsedOn');
    }
    expect(await preparedOnTheConnection(KEY_BY_HASH.name)).toEqual({
      runs: 3,
      statement: KEY_BY_HASH.text,
    });
    expect(await runPrepared(single, KEY_BY_HASH, [hashApiKey('svc_live_unknown')])).toEqual([]);
  });

  it("reads a job's state only within the caller's workspace", async () => {
    const owner = await t.createWorkspace();
    const other = await t.createWorkspace();
    const job = await insertTranscription(t, owner.workspaceId, { status: 'processing', progress: 40 });
    expect(await runPrepared(single, STATE_IN_WORKSPACE, [owner.workspaceId, job.id])).toEqual([
      { status: 'processing', progress: 40 },
    ]);
    expect(await runPrepared(single, STATE_IN_WORKSPACE, [other.workspaceId, job.id])).toEqual([]);
    expect(await preparedOnTheConnection(STATE_IN_WORKSPACE.name)).toMatchObject({ runs: 2 });

    // Through the route: the owner reads it, another workspace's key gets the unknown job's 404.
    const own = await t.http().get(`/v1/transcriptions/${job.id}/status`).set(bearer(owner.apiKey));
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ data: { id: job.id, status: 'processing', progress: 40 } });
    const foreign = await t.http().get(`/v1/transcriptions/${job.id}/status`).set(bearer(other.apiKey));
    expect(foreign.status).toBe(404);
  });
});
