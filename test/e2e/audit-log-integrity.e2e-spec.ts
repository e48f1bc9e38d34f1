import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { RetentionPurgeService } from '../../src/transcriptions/retention/retention-purge.service';
import { expectMatchesSpec } from '../support/openapi-contract';
import { createUserWithPassword } from '../support/sessions';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';
import { asBuffer, insertTranscription, upload } from '../support/transcriptions';

const run = promisify(execFile);
const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const PASSWORD = 'correct horse battery staple';
const CLIP = testAudio('coqui-stt/LDC93S1.wav');
const RETENTION_DAYS = 30;

async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run('node', [CLI, ...args], { env: { ...process.env, ...baseTestEnvironment() } });
  return JSON.parse(stdout.trim()) as Record<string, unknown>;
}

async function cliFails(...args: string[]): Promise<string> {
  try {
    await run('node', [CLI, ...args], { env: { ...process.env, ...baseTestEnvironment() } });
  } catch (error) {
    return (error as { stderr: string }).stderr;
  }
  throw new Error(`expected "${args.join(' ')}" to fail`);
}

/**
 * What makes the audit log trustworthy: each event commits with its act (a failed act leaves no event, an
 * event that cannot be written fails the act: both forced here with a trigger that makes the one write fail),
 * the database refuses any change or removal other than the retention purge's, the purge keeps
 * AUDIT_RETENTION_DAYS, and the operator's CLI acts are recorded as the operator's.
 */
describe('Audit log integrity', () => {
  let t: TestApp;
  let database: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api', AUDIT_RETENTION_DAYS: String(RETENTION_DAYS) });
    database = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  /**
   * Runs `work` while one write fails: a BEFORE trigger on `table` that raises for rows matching `when`
   * (PostgreSQL's own failure, as a constraint or a lost connection would give one), removed afterwards.
   */
  async function whileFailing<T>(
    table: string,
    operation: 'INSERT' | 'UPDATE' | 'DELETE',
    when: string,
    work: () => Promise<T>,
  ): Promise<T> {
    const name = `forced_failure_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    await database.query(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$`,
    );
    await database.query(
      `CREATE TRIGGER ${name} BEFORE ${operation} ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`,
    );
    try {
      return await work();
    } finally {
      await database.query(`DROP TRIGGER ${name} ON ${table}`);
      await database.query(`DROP FUNCTION ${name}()`);
    }
  }

  async function actions(workspaceId: string): Promise<string[]> {
    const rows = await database.query<Array<{ action: string }>>(
      'SELECT action FROM audit_events WHERE workspace_id = $1 ORDER BY at, id',
      [workspaceId],
    );
    return rows.map((row) => row.action);
  }

  /** The event of the workspace, written only while failing the audit log's insert for this action. */
  const auditFails = (workspaceId: string, action: string) =>
    [`audit_events`, 'INSERT', `NEW.workspace_id = '${workspaceId}' AND NEW.action = '${action}'`] as const;

  describe('a failed act leaves no event', () => {
    it('a webhook change, a key creation, a transcription deletion, a sign-in and a settings change', async () => {
      const workspace = await t.createWorkspace({ name: 'Failing acts' });
      const user = await createUserWithPassword(t, PASSWORD);
      const session = bearer(t.issueToken(workspace.userId));
      const hook = await t
        .http()
        .post('/v1/webhooks')
        .set(session)
        .send({ url: 'http://127.0.0.1:9/h', events: ['balance.low'] });
      const hookId = hook.body.data.id as string;
      const transcription = await insertTranscription(t, workspace.workspaceId);
      const before = await actions(workspace.workspaceId);
      const userBefore = await actions(user.workspaceId);
      const ws = `'${workspace.workspaceId}'`;

      const patched = await whileFailing('webhook_endpoints', 'UPDATE', `NEW.workspace_id = ${ws}`, () =>
        t.http().patch(`/v1/webhooks/${hookId}`).set(session).send({ isActive: false }),
      );
      expect(patched.status).toBe(500);
      const keyMade = await whileFailing('api_keys', 'INSERT', `NEW.workspace_id = ${ws}`, () =>
        t.http().post('/v1/api-keys').set(session).send({ name: 'never' }),
      );
      expect(keyMade.status).toBe(500);
      const deleted = await whileFailing('transcriptions', 'DELETE', `OLD.workspace_id = ${ws}`, () =>
        t.http().delete(`/v1/transcriptions/${transcription.id}`).set(session),
      );
      expect(deleted.status).toBe(500);
      // One PATCH, two settings: the retention's write fails, so neither setting nor event is kept.
      const settings = await whileFailing(
        'workspaces',
        'UPDATE',
        `NEW.id = ${ws} AND NEW.audio_retention_days IS DISTINCT FROM OLD.audio_retention_days`,
        () =>
          t
            .http()
            .patch('/v1/account/settings')
            .set(session)
            .send({ lowBalanceThreshold: 3, retention: { audioDays: 5 } }),
      );
      expect(settings.status).toBe(500);
      const signIn = await whileFailing('refresh_tokens', 'INSERT', `NEW.user_id = '${user.userId}'`, () =>
        t.http().post('/v1/auth/login').send({ email: user.email, password: PASSWORD }),
      );
      expect(signIn.status).toBe(500);

      expect(await actions(workspace.workspaceId)).toEqual(before);
      expect(await actions(user.workspaceId)).toEqual(userBefore);
      const kept = await t.http().get('/v1/account/settings').set(session);
      expect(kept.body.data).toEqual({
        lowBalanceThreshold: 1,
        retention: { audioDays: null, transcriptDays: null },
      });
      expect((await t.http().get(`/v1/transcriptions/${transcription.id}`).set(session)).status).toBe(200);
    });
  });

  describe('an act whose event cannot be written does not happen', () => {
    it('a webhook deletion, a key revocation, a retention change and a transcription deletion are undone', async () => {
      const workspace = await t.createWorkspace({ name: 'Failing events' });
      const session = bearer(t.issueToken(workspace.userId));
      const hook = await t
        .http()
        .post('/v1/webhooks')
        .set(session)
        .send({ url: 'http://127.0.0.1:9/h', events: ['balance.low'] });
      const hookId = hook.body.data.id as string;
      const keys = await t.http().get('/v1/api-keys').set(session);
      const keyId = (keys.body.data as Array<{ id: string }>)[0].id;
      const transcription = await insertTranscription(t, workspace.workspaceId);
      const id = workspace.workspaceId;

      const deleted = await whileFailing(...auditFails(id, 'webhook.deleted'), () =>
        t.http().delete(`/v1/webhooks/${hookId}`).set(session),
      );
      expect(deleted.status).toBe(500);
      expectMatchesSpec(deleted, 'deleteWebhook');
      const revoked = await whileFailing(...auditFails(id, 'api_key.revoked'), () =>
        t.http().delete(`/v1/api-keys/${keyId}`).set(session),
      );
      expect(revoked.status).toBe(500);
      const retention = await whileFailing(...auditFails(id, 'workspace.retention_changed'), () =>
        t
          .http()
          .patch('/v1/account/settings')
          .set(session)
          .send({ retention: { transcriptDays: 3 } }),
      );
      expect(retention.status).toBe(500);
      const removed = await whileFailing(...auditFails(id, 'transcription.deleted'), () =>
        t.http().delete(`/v1/transcriptions/${transcription.id}`).set(session),
      );
      expect(removed.status).toBe(500);

      const hooks = await t.http().get('/v1/webhooks').set(session);
      expect((hooks.body.data as Array<{ id: string }>).map((endpoint) => endpoint.id)).toEqual([hookId]);
      expect((await t.http().get('/v1/account/balance').set(bearer(workspace.apiKey))).status).toBe(200);
      const settings = await t.http().get('/v1/account/settings').set(session);
      expect(settings.body.data.retention).toEqual({ audioDays: null, transcriptDays: null });
      expect((await t.http().get(`/v1/transcriptions/${transcription.id}`).set(session)).status).toBe(200);
      // Once the log takes events again, the same acts go through, each with its event.
      await t.http().delete(`/v1/webhooks/${hookId}`).set(session).expect(204);
      expect(await actions(id)).toContain('webhook.deleted');
    });

    it('a sign-in issues no session, the audio is not sent, and a key’s new network is not remembered', async () => {
      const user = await createUserWithPassword(t, PASSWORD);
      const signIn = await whileFailing(...auditFails(user.workspaceId, 'auth.sign_in'), () =>
        t.http().post('/v1/auth/login').send({ email: user.email, password: PASSWORD }),
      );
      expect(signIn.status).toBe(500);
      expect(signIn.headers['set-cookie']).toBeUndefined();
      const tokens = await database.query<unknown[]>('SELECT 1 FROM refresh_tokens WHERE user_id = $1', [
        user.userId,
      ]);
      expect(tokens).toHaveLength(0);

      const workspace = await t.createWorkspace({ name: 'Failing audio' });
      const network = await whileFailing(
        ...auditFails(workspace.workspaceId, 'api_key.used_from_new_network'),
        () => t.http().get('/v1/account/balance').set(bearer(workspace.apiKey)),
      );
      expect(network.status).toBe(500);
      const remembered = await database.query<unknown[]>(
        'SELECT 1 FROM api_key_networks n JOIN api_keys k ON k.id = n.api_key_id WHERE k.workspace_id = $1',
        [workspace.workspaceId],
      );
      expect(remembered).toHaveLength(0);

      const created = await upload(t, workspace.apiKey, CLIP);
      expect(created.status).toBe(202);
      expect(await actions(workspace.workspaceId)).toContain('api_key.used_from_new_network');
      const audio = await whileFailing(
        ...auditFails(workspace.workspaceId, 'transcription.audio_downloaded'),
        () =>
          t
            .http()
            .get(`/v1/transcriptions/${created.body.data.id as string}/audio`)
            .set(bearer(workspace.apiKey))
            .buffer(true)
            .parse(asBuffer),
      );
      expect(audio.status).toBe(500);
      expect(audio.headers['content-type']).toMatch(/^application\/problem\+json/);
      expectMatchesSpec(audio, 'getTranscriptionAudio');
    });

    it('an operator’s top-up: the CLI fails and the balance stays', async () => {
      const workspace = await t.createWorkspace({ name: 'Failing top-up', balanceEur: 10 });
      const stderr = await whileFailing(
        ...auditFails(workspace.workspaceId, 'billing.balance_topped_up'),
        () => cliFails('balance:topup', '--workspace', workspace.workspaceId, '--amount', '5'),
      );
      expect(stderr).toContain('forced failure');
      const balance = await t.http().get('/v1/account/balance').set(bearer(workspace.apiKey));
      expect(balance.body.data.balance).toBe(10);
    });
  });

  it('records the operator’s CLI acts as the operator’s, with no client address or request id', async () => {
    const workspace = await t.createWorkspace({ name: 'Operator acts', balanceEur: 1 });
    await cli('balance:topup', '--workspace', workspace.workspaceId, '--amount', '2.5');
    await cli(
      'workspace:auto-reload',
      '--workspace',
      workspace.workspaceId,
      '--enabled',
      'true',
      '--threshold',
      '1',
      '--amount',
      '20',
    );
    await cli('workspace:retention', '--workspace', workspace.workspaceId, '--audio-days', '14');
    const key = await cli('apikey:create', '--workspace', workspace.workspaceId);
    await cli('apikey:revoke', '--key', key.apiKey as string);

    const rows = await database.query<
      Array<{
        action: string;
        actor_type: string;
        actor_credential: string;
        client_ip: string | null;
        request_id: string | null;
        before: unknown;
        after: unknown;
        details: unknown;
        target_id: string;
      }>
    >(
      `SELECT action, actor_type, actor_credential, client_ip, request_id, before, after, details, target_id
         FROM audit_events WHERE workspace_id = $1 ORDER BY at, id`,
      [workspace.workspaceId],
    );
    expect(rows.map((row) => row.action)).toEqual([
      'api_key.created', // workspace:create's first key
      'billing.balance_topped_up',
      'billing.auto_reload_changed',
      'workspace.retention_changed',
      'api_key.created',
      'api_key.revoked',
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({
        actor_type: 'operator',
        actor_credential: 'cli',
        client_ip: null,
        request_id: null,
      });
    }
    expect(rows[1].details).toMatchObject({ amount: 2.5, balanceAfter: 3.5 });
    expect(rows[2]).toMatchObject({
      before: { enabled: false, threshold: null, amount: null },
      after: { enabled: true, threshold: 1, amount: 20 },
    });
    expect(rows[3]).toMatchObject({ before: { audioDays: null }, after: { audioDays: 14 } });
    expect(rows[4].target_id).toBe(key.apiKeyId);
    expect(JSON.stringify(rows)).not.toContain(key.apiKey as string);
  });

  describe('append-only in the database', () => {
    it('refuses UPDATE, DELETE and TRUNCATE by the service’s own database user, and a DELETE dressed up as the purge', async () => {
      const workspace = await t.createWorkspace({ name: 'Append only' });
      const before = await actions(workspace.workspaceId);
      expect(before.length).toBeGreaterThan(0);
      for (const statement of [
        `UPDATE audit_events SET action = 'auth.sign_in' WHERE workspace_id = '${workspace.workspaceId}'`,
        `DELETE FROM audit_events WHERE workspace_id = '${workspace.workspaceId}'`,
        'TRUNCATE audit_events',
        // The purge's own statement, run from elsewhere with a retention of 0 days.
        `DO $$ DECLARE retention_days integer := 0; batch_size integer := 100000; BEGIN
           DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < now() - make_interval(days => retention_days) ORDER BY at LIMIT batch_size);
         END $$`,
        `DO $$ BEGIN DELETE FROM audit_events /*\nPL/pgSQL function audit_events_purge(integer,integer) line 7 at SQL statement */; END $$`,
        'SELECT audit_events_purge(0, 100000)',
      ]) {
        await expect(database.query(statement)).rejects.toThrow(
          /append-only|retention_days must be at least 1/,
        );
      }
      expect(await actions(workspace.workspaceId)).toEqual(before);
    });

    it('sets an event’s time itself: an INSERT cannot backdate it', async () => {
      const [row] = await database.query<Array<{ at: Date }>>(
        `INSERT INTO audit_events (workspace_id, action, actor_type, at)
         VALUES ($1, 'auth.sign_in', 'user', now() - interval '400 days') RETURNING at`,
        [randomUUID()],
      );
      expect(Date.now() - row.at.getTime()).toBeLessThan(3_600_000);
    });
  });

  it('the retention purge deletes events older than AUDIT_RETENTION_DAYS, and only those', async () => {
    const workspace = await t.createWorkspace({ name: 'Audit retention' });
    const session = bearer(t.issueToken(workspace.userId));
    for (const name of ['old', 'recent']) {
      await t.http().post('/v1/api-keys').set(session).send({ name }).expect(201);
    }
    const ids = await database.query<Array<{ id: string; name: string }>>(
      `SELECT id, after->>'name' AS name FROM audit_events WHERE workspace_id = $1 AND action = 'api_key.created'`,
      [workspace.workspaceId],
    );
    const idOf = (name: string) => ids.find((row) => row.name === name)!.id;
    // A year's history cannot be waited for: the test backdates two events with the database's triggers off
    // for its own transaction (a superuser's session_replication_role), which the service's role cannot do.
    await database.transaction(async (tx) => {
      await tx.query(`SET LOCAL session_replication_role = replica`);
      await tx.query(`UPDATE audit_events SET at = now() - make_interval(days => $2 + 1) WHERE id = $1`, [
        idOf('old'),
        RETENTION_DAYS,
      ]);
      await tx.query(`UPDATE audit_events SET at = now() - make_interval(days => $2 - 1) WHERE id = $1`, [
        idOf('recent'),
        RETENTION_DAYS,
      ]);
    });
    const eventsBefore = await actions(workspace.workspaceId);

    const purge = t.app.get(RetentionPurgeService);
    expect(await purge.purgeExpired()).toMatchObject({ auditEventsDeleted: 1 });
    const left = await database.query<Array<{ id: string }>>(
      'SELECT id FROM audit_events WHERE workspace_id = $1',
      [workspace.workspaceId],
    );
    expect(left.map((row) => row.id)).not.toContain(idOf('old'));
    expect(left.map((row) => row.id)).toContain(idOf('recent'));
    expect(left).toHaveLength(eventsBefore.length - 1);
    expect(await purge.purgeExpired()).toMatchObject({ auditEventsDeleted: 0 });
  });
});
