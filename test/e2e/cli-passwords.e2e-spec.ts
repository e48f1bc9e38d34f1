import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { expectMatchesSpec } from '../support/openapi-contract';
import { startTestApp, TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const PASSWORD = 'a long enough operator password';

/** Runs `node dist/cli.js …` with `stdin` piped in, as an operator's script would. */
function cli(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [CLI, ...args], { env: { ...process.env, ...baseTestEnvironment() } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** The operator gives users a dashboard password (never required in argv). */
describe('Operator CLI: dashboard passwords', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
  });
  afterAll(() => t.close());

  const login = (email: string, password: string) =>
    t.http().post('/v1/auth/login').send({ email, password });

  it('workspace:create --password-stdin makes a user who can sign in; the output still has the key and the email', async () => {
    const email = `cli-${randomUUID()}@example.com`;
    const run = await cli(
      ['workspace:create', '--name', 'CLI login', '--email', email, '--password-stdin'],
      `${PASSWORD}\n`,
    );
    expect(run.code).toBe(0);
    const created = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
    expect(created).toEqual({
      workspaceId: expect.any(String),
      userId: expect.any(String),
      email,
      apiKey: expect.stringMatching(/^svc_live_/),
    });
    const response = await login(email, PASSWORD);
    expect(response.status).toBe(200);
    expectMatchesSpec(response, 'login');
    expect(response.body.data.workspace.id).toBe(created.workspaceId);
  });

  it('workspace:create --password works too, and refuses a short password', async () => {
    const email = `cli-${randomUUID()}@example.com`;
    const run = await cli([
      'workspace:create',
      '--name',
      'CLI argv',
      '--email',
      email,
      '--password',
      PASSWORD,
    ]);
    expect(run.code).toBe(0);
    expect((await login(email, PASSWORD)).status).toBe(200);

    const short = await cli(['workspace:create', '--name', 'Short', '--password', 'too short']);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('at least 12 characters');
  });

  it('user:set-password reads stdin, lets the user sign in with the new password only, and ends old sessions', async () => {
    const email = `cli-${randomUUID()}@example.com`;
    await cli(['workspace:create', '--name', 'Reset', '--email', email, '--password', PASSWORD]);
    const before = await login(email, PASSWORD);
    const refreshCookie = (before.headers['set-cookie'] as unknown as string[])
      .find((cookie) => cookie.startsWith('stt_refresh='))
      ?.split(';')[0];

    const changed = await cli(
      ['user:set-password', '--email', email.toUpperCase()],
      'the brand new password\n',
    );
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout.trim())).toEqual({ userId: expect.any(String), email });

    expect((await login(email, PASSWORD)).status).toBe(401);
    expect((await login(email, 'the brand new password')).status).toBe(200);
    const refreshed = await t
      .http()
      .post('/v1/auth/refresh')
      .set('Cookie', refreshCookie ?? '');
    expect(refreshed.status).toBe(401);
    // The access token of the old sign-in ends with it (it used to answer 200 until it expired).
    const profile = await t
      .http()
      .get('/v1/account/profile')
      .set('Authorization', `Bearer ${before.body.data.accessToken as string}`);
    expect(profile.status).toBe(401);

    const unknown = await cli(
      ['user:set-password', '--email', `nobody-${randomUUID()}@example.com`],
      `${PASSWORD}\n`,
    );
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('does not exist');
    const empty = await cli(['user:set-password', '--email', email], '');
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toContain('no password on standard input');
  });

  it('demo:ensure run twice (the quick start re-run) leaves one user and one workspace, and its new key opens the workspace the login opens', async () => {
    // Before: the quick start's second run made a second "Demo workspace" owned by owner@demo-workspace-….example,
    // while the printed login opened the first one (issue 35 item 1).
    const email = `demo-${randomUUID()}@example.com`;
    const args = [
      'demo:ensure',
      '--email',
      email,
      '--balance',
      '10',
      '--key-name',
      'Quick start',
      '--password-stdin',
    ];
    const first = await cli(args, `${PASSWORD}\n`);
    expect(first.code).toBe(0);
    const made = JSON.parse(first.stdout.trim()) as Record<string, unknown>;
    expect(made).toMatchObject({ created: true, email, apiKey: expect.stringMatching(/^svc_live_/) });

    const secondPassword = `${PASSWORD} again`;
    const second = await cli(args, `${secondPassword}\n`);
    expect(second.code).toBe(0);
    const again = JSON.parse(second.stdout.trim()) as Record<string, unknown>;
    expect(again).toMatchObject({
      created: false,
      workspaceId: made.workspaceId,
      userId: made.userId,
      email,
    });
    expect(again.apiKey).toMatch(/^svc_live_/);
    expect(again.apiKey).not.toBe(made.apiKey);

    const dataSource = t.app.get(DataSource);
    const rows = (sql: string) => dataSource.query(sql, [made.workspaceId]);
    expect(await rows(`SELECT id FROM users WHERE active_workspace_id = $1`)).toHaveLength(1);
    const workspaces: Array<{ name: string }> = await dataSource.query(
      `SELECT w.name FROM workspaces w JOIN users u ON u.active_workspace_id = w.id WHERE u.email = $1`,
      [email],
    );
    expect(workspaces).toHaveLength(1);
    // The balance was paid once, at creation.
    const balance = await t
      .http()
      .get('/v1/account/balance')
      .set({ Authorization: `Bearer ${String(again.apiKey)}` });
    expect(balance.status).toBe(200);
    expect(balance.body.data.balance).toBe(10);

    // The printed login (the second password) opens the workspace of the printed key; the first password is gone.
    const signedIn = await login(email, secondPassword);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.workspace.id).toBe(made.workspaceId);
    expect((await login(email, PASSWORD)).status).toBe(401);

    // compose's demo service: a later start prints the same workspace and no new key.
    const composeRun = await cli(['demo:ensure', '--email', email, '--key-only-if-created']);
    expect(composeRun.code).toBe(0);
    expect(JSON.parse(composeRun.stdout.trim())).toMatchObject({
      created: false,
      workspaceId: made.workspaceId,
      apiKey: null,
    });
  });
});
