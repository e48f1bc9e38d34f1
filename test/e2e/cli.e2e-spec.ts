import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';

const run = promisify(execFile);
const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run('node', [CLI, ...args], { env: { ...process.env, ...baseTestEnvironment() } });
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]) as Record<string, unknown>;
}

async function cliFails(...args: string[]): Promise<string> {
  try {
    await run('node', [CLI, ...args], { env: { ...process.env, ...baseTestEnvironment() } });
  } catch (error) {
    return (error as { stderr: string }).stderr;
  }
  throw new Error(`expected "${args.join(' ')}" to fail`);
}

/** The operator CLI, exactly as scripts call it: `node dist/cli.js …`, one JSON line out. */
describe('Operator CLI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
  });
  afterAll(() => t.close());

  it('migrate is idempotent on a migrated database', async () => {
    expect(await cli('migrate')).toEqual({ applied: [] });
  });

  it('migrate:check finds no drift between entities and migrations', async () => {
    expect(await cli('migrate:check')).toEqual({ drift: false });
  });

  it('workspace:create, balance:topup, apikey:create/revoke, token:issue and user:delete work together', async () => {
    const created = await cli(
      'workspace:create',
      '--name',
      'CLI Corp',
      '--balance',
      '2.5',
      '--free',
      '1',
      '--low-balance-threshold',
      '0.5',
      '--email',
      'Ops@Example.com',
      '--key-name',
      'Quick start',
    );
    expect(created).toEqual({
      workspaceId: expect.any(String),
      userId: expect.any(String),
      email: 'ops@example.com',
      apiKey: expect.stringMatching(/^svc_live_[0-9A-Za-z]{40}$/),
    });
    const apiKey = created.apiKey as string;
    const balance = await t.http().get('/v1/account/balance').set(bearer(apiKey));
    expect(balance.body.data).toMatchObject({ balance: 2.5, freeTranscriptionsRemaining: 1 });
    expectMatchesSpec(balance, 'getBalance');

    expect(
      await cli('balance:topup', '--workspace', created.workspaceId as string, '--amount', '1.25'),
    ).toEqual({
      balance: 3.75,
    });

    const second = await cli('apikey:create', '--workspace', created.workspaceId as string);
    expect(second).toMatchObject({
      workspaceId: created.workspaceId,
      apiKey: expect.stringMatching(/^svc_live_/),
    });
    expect(
      (
        await t
          .http()
          .get('/v1/account/balance')
          .set(bearer(second.apiKey as string))
      ).body.data.balance,
    ).toBe(3.75);

    expect(await cli('apikey:revoke', '--key', second.apiKey as string)).toMatchObject({ revoked: true });
    const revoked = await t
      .http()
      .get('/v1/account/balance')
      .set(bearer(second.apiKey as string));
    expect(revoked.body.type).toBe('https://errors.transcription.example/problems/invalid-api-key');

    const { token } = (await cli('token:issue', '--user', created.userId as string)) as { token: string };
    expect((await t.http().get('/v1/account/profile').set(bearer(token))).status).toBe(200);
    // The first key carries the --key-name label (the second, revoked above, is no longer listed).
    const keys = await t.http().get('/v1/api-keys').set(bearer(token));
    expectMatchesSpec(keys, 'listApiKeys');
    expect((keys.body.data as { name: string }[]).map((key) => key.name)).toEqual(['Quick start']);

    expect(await cli('user:delete', '--user', created.userId as string)).toEqual({
      deleted: true,
      userId: created.userId,
    });
    const afterDelete = await t.http().get('/v1/account/profile').set(bearer(token));
    expect(afterDelete.body.type).toBe('https://errors.transcription.example/problems/user-not-found');
    // The workspace's keys outlive the user who created them.
    const keyAfterDelete = await t.http().get('/v1/account/balance').set(bearer(apiKey));
    expect(keyAfterDelete.status).toBe(200);
    expect(keyAfterDelete.body.data.balance).toBe(3.75);
    expectMatchesSpec(keyAfterDelete, 'getBalance');
  });

  it('apikey:create makes a workspace key without a user: for a workspace with no user left, or on request', async () => {
    const created = await cli('workspace:create', '--name', 'Userless Corp', '--balance', '1');
    const workspaceId = created.workspaceId as string;

    const chosen = await cli('apikey:create', '--workspace', workspaceId, '--without-user');
    expect(chosen).toMatchObject({ workspaceId, userId: null, apiKey: expect.stringMatching(/^svc_live_/) });

    await cli('user:delete', '--user', created.userId as string);
    const orphan = await cli('apikey:create', '--workspace', workspaceId);
    expect(orphan).toMatchObject({ workspaceId, userId: null, apiKey: expect.stringMatching(/^svc_live_/) });

    for (const key of [chosen.apiKey as string, orphan.apiKey as string]) {
      const balance = await t.http().get('/v1/account/balance').set(bearer(key));
      expect(balance.status).toBe(200);
      expect(balance.body.data.balance).toBe(1);
      expectMatchesSpec(balance, 'getBalance');
      const profile = await t.http().get('/v1/account/profile').set(bearer(key));
      expect(profile.status).toBe(403);
      expect(profile.body.type).toBe('https://errors.transcription.example/problems/forbidden');
      expectMatchesSpec(profile, 'getProfile');
    }
  });

  it('workspace:retention sets and clears the retention days of a workspace, and refuses bad input', async () => {
    const { workspaceId } = await t.createWorkspace({ name: 'CLI retention' });
    const stored = async () =>
      (
        await t.app
          .get(DataSource)
          .query(`SELECT audio_retention_days, transcript_retention_days FROM workspaces WHERE id = $1`, [
            workspaceId,
          ])
      )[0] as Record<string, number | null>;
    expect(await stored()).toEqual({ audio_retention_days: null, transcript_retention_days: null });

    expect(
      await cli(
        'workspace:retention',
        '--workspace',
        workspaceId,
        '--audio-days',
        '7',
        '--transcript-days',
        '30',
      ),
    ).toEqual({ workspaceId, audioRetentionDays: 7, transcriptRetentionDays: 30 });
    expect(await stored()).toEqual({ audio_retention_days: 7, transcript_retention_days: 30 });
    // One setting at a time leaves the other as it is.
    expect(await cli('workspace:retention', '--workspace', workspaceId, '--audio-days', '0')).toEqual({
      workspaceId,
      audioRetentionDays: 0,
      transcriptRetentionDays: 30,
    });
    expect(await cli('workspace:retention', '--workspace', workspaceId, '--clear')).toEqual({
      workspaceId,
      audioRetentionDays: null,
      transcriptRetentionDays: null,
    });
    expect(await stored()).toEqual({ audio_retention_days: null, transcript_retention_days: null });

    expect(await cliFails('workspace:retention', '--audio-days', '7')).toMatch(/--workspace is required/);
    expect(await cliFails('workspace:retention', '--workspace', workspaceId)).toMatch(/--clear/);
    expect(await cliFails('workspace:retention', '--workspace', workspaceId, '--audio-days', '-1')).toMatch(
      /whole number of days/,
    );
    expect(
      await cliFails('workspace:retention', '--workspace', workspaceId, '--transcript-days', '1.5'),
    ).toMatch(/whole number of days/);
    expect(
      await cliFails('workspace:retention', '--workspace', workspaceId, '--clear', '--audio-days', '1'),
    ).toMatch(/cannot be combined/);
    expect(await cliFails('workspace:retention', '--workspace', randomUUID(), '--audio-days', '1')).toMatch(
      /workspace does not exist/,
    );
    expect(await stored()).toEqual({ audio_retention_days: null, transcript_retention_days: null });
  });

  it('explains bad input on stderr with a non-zero exit', async () => {
    expect(await cliFails('workspace:create')).toContain('--name is required');
    expect(await cliFails('balance:topup', '--workspace', 'x', '--amount', 'lots')).toContain(
      '--amount must be a number',
    );
    expect(await cliFails('apikey:revoke', '--key', 'svc_live_nope')).toContain('no such API key');
    expect(await cliFails('apikey:create', '--workspace', '00000000-0000-4000-8000-000000000000')).toContain(
      'does not exist',
    );
  });

  it('refuses to start with a bad configuration and names each bad variable', async () => {
    try {
      await run('node', [CLI, 'migrate'], {
        env: { ...process.env, ...baseTestEnvironment(), JWT_SECRET: 'short', PORT: 'eighty', ROLE: 'boss' },
      });
      throw new Error('expected a configuration error');
    } catch (error) {
      const stderr = (error as { stderr: string }).stderr;
      expect(stderr).toContain('JWT_SECRET');
      expect(stderr).toContain('PORT');
      expect(stderr).toContain('ROLE');
    }
  });
});
