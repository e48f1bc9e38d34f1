import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { hashPassword } from '../../src/auth/session/password-hasher';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { OidcProviderProcess, signInAtProvider, startOidcProvider } from '../support/oidc-provider';
import { cookieValue } from '../support/sessions';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const PROBLEMS = 'https://errors.transcription.example/problems';
const PUBLIC_URL = 'http://stt.test';
const CLIENT = {
  client_id: 'stt-e2e',
  client_secret: 'an-sso-client-secret-for-the-e2e-tests',
  redirect_uris: [`${PUBLIC_URL}/v1/auth/sso/callback`],
};
const PASSWORD = 'a long enough test password';

/**
 * Single sign-on (issue 32) against a real OpenID provider (oidc-provider in its own process, signed in through
 * its own login and consent pages over HTTP): the owner's setting, just-in-time membership, the refusals of the
 * flow (state, replayed code, a foreign signing key, the email's domain), SSO required (password refused,
 * owners break glass, audited), a sign-in confined to its workspace, and access ended by the provider, by a
 * removal and by removing the setting. Every answer is checked against openapi.yaml.
 */
describe('Single sign-on (OpenID Connect)', () => {
  let t: TestApp;
  let db: DataSource;
  let provider: OidcProviderProcess;
  beforeAll(async () => {
    provider = await startOidcProvider([CLIENT]);
    t = await startTestApp({ ROLE: 'api', PUBLIC_URL, SSO_ALLOW_PRIVATE_ISSUERS: 'true' });
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t?.close();
    await provider?.stop();
  });

  let counter = 0;
  const unique = (label: string): string => `${label}-${Date.now()}-${(counter += 1)}`;

  /** A workspace whose owner (with a password) set SSO for `domain`. */
  async function ssoWorkspace(settings: Record<string, unknown> = {}, idp: OidcProviderProcess = provider) {
    const domain = `${unique('corp')}.example`;
    const ownerEmail = `owner@${domain}`;
    const owner = await t.createWorkspace({
      name: 'SSO',
      email: ownerEmail,
      passwordHash: await hashPassword(PASSWORD),
    });
    const session = bearer(t.issueToken(owner.userId));
    const put = await t
      .http()
      .put('/v1/workspace/sso')
      .set(session)
      .send({
        issuer: idp.issuer,
        clientId: CLIENT.client_id,
        clientSecret: CLIENT.client_secret,
        allowedDomains: [domain],
        ...settings,
      });
    expectMatchesSpec(put, 'putSsoConnection');
    expect(put.status).toBe(200);
    return { ...owner, ownerEmail, session, domain };
  }

  /** Starts at the service, signs in at the provider's pages as `login`: the callback URL and the state cookie. */
  async function atProvider(workspaceId: string, login: string, idp: OidcProviderProcess = provider) {
    const start = await t.http().get(`/v1/auth/sso/start?workspace=${workspaceId}`);
    expectMatchesSpec(start, 'startSsoSignIn');
    expect(start.status).toBe(302);
    const location = String(start.headers.location);
    expect(location.startsWith(`${idp.issuer}/`)).toBe(true);
    const authorization = new URL(location).searchParams;
    expect(authorization.get('code_challenge_method')).toBe('S256');
    expect(authorization.get('state')).toBeTruthy();
    expect(authorization.get('nonce')).toBeTruthy();
    const callback = await signInAtProvider(location, login);
    expect(callback.origin + callback.pathname).toBe(CLIENT.redirect_uris[0]);
    return { callback, stateCookie: cookieValue(start, 'stt_sso') };
  }

  function complete(search: string, stateCookie: string | null): Promise<Response> {
    const request = t.http().get(`/v1/auth/sso/callback${search}`);
    return stateCookie === null ? request : request.set('Cookie', `stt_sso=${stateCookie}`);
  }

  /** A whole sign-in as `login` (an account of `email` at the provider): the callback's answer. */
  async function signIn(
    workspaceId: string,
    login: string,
    email: string,
    verified = true,
    idp: OidcProviderProcess = provider,
  ) {
    await idp.setAccount(login, { email, verified });
    const { callback, stateCookie } = await atProvider(workspaceId, login, idp);
    const answer = await complete(callback.search, stateCookie);
    expectMatchesSpec(answer, 'completeSsoSignIn');
    return answer;
  }

  function signedIn(answer: Response): { session: Record<string, string>; refresh: string } {
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/app/');
    return {
      session: bearer(cookieValue(answer, 'stt_session')),
      refresh: cookieValue(answer, 'stt_refresh'),
    };
  }

  function refused(answer: Response, reason: string): void {
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe(`/app/?sso_error=${reason}`);
    expect(cookieValue(answer, 'stt_sso')).toBe('');
  }

  /** Sets the user's active workspace directly (as a switch made elsewhere would). */
  const makeActive = (userId: string, workspaceId: string): Promise<unknown> =>
    db.query('UPDATE users SET active_workspace_id = $1 WHERE id = $2', [workspaceId, userId]);

  const auditActions = async (workspaceId: string): Promise<string[]> =>
    (
      await db.query<Array<{ action: string }>>(
        'SELECT action FROM audit_events WHERE workspace_id = $1 ORDER BY at, id',
        [workspaceId],
      )
    ).map((row) => row.action);

  it('an owner sets it (discovered first, the secret never answered); admins may not; a wrong issuer is refused', async () => {
    const workspace = await ssoWorkspace({ defaultRole: 'viewer' });
    const read = await t.http().get('/v1/workspace/sso').set(workspace.session);
    expectMatchesSpec(read, 'getSsoConnection');
    expect(read.body.data).toMatchObject({
      issuer: provider.issuer,
      clientId: CLIENT.client_id,
      clientSecretSet: true,
      allowedDomains: [workspace.domain],
      defaultRole: 'viewer',
      ssoRequired: false,
      callbackUrl: `${PUBLIC_URL}/v1/auth/sso/callback`,
      signInUrl: `${PUBLIC_URL}/v1/auth/sso/start?workspace=${workspace.workspaceId}`,
    });
    expect(JSON.stringify(read.body)).not.toContain(CLIENT.client_secret);
    const stored = await db.query<Array<{ client_secret_encrypted: string }>>(
      'SELECT client_secret_encrypted FROM sso_connections WHERE workspace_id = $1',
      [workspace.workspaceId],
    );
    expect(stored[0].client_secret_encrypted).not.toContain(CLIENT.client_secret);

    // The secret may be left out: the stored one is kept (discovery runs with it again).
    const kept = await t
      .http()
      .put('/v1/workspace/sso')
      .set(workspace.session)
      .send({ issuer: provider.issuer, clientId: CLIENT.client_id, allowedDomains: [workspace.domain] });
    expectMatchesSpec(kept, 'putSsoConnection');
    expect(kept.body.data.defaultRole).toBe('member');

    const wrong = await t
      .http()
      .put('/v1/workspace/sso')
      .set(workspace.session)
      .send({
        issuer: 'http://127.0.0.1:9/nothing',
        clientId: 'x',
        clientSecret: 'y',
        allowedDomains: ['a.example'],
      });
    expectMatchesSpec(wrong, 'putSsoConnection');
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fieldErrors.issuer[0]).toMatch(/^issuer discovery failed/);

    const admin = await t.createWorkspace({ name: 'Another', email: `${unique('admin')}@example.com` });
    await db.query(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'admin')`, [
      workspace.workspaceId,
      admin.userId,
    ]);
    await makeActive(admin.userId, workspace.workspaceId);
    const asAdmin = await t
      .http()
      .get('/v1/workspace/sso')
      .set(bearer(t.issueToken(admin.userId)));
    expectMatchesSpec(asAdmin, 'getSsoConnection');
    expect(asAdmin.status).toBe(403);
    expect(asAdmin.body.permission).toBe('sso:manage');

    const settings = await db.query<Array<{ before: unknown; after: Record<string, unknown> }>>(
      `SELECT before, after FROM audit_events WHERE workspace_id = $1 AND action = 'sso.settings_changed'
       ORDER BY at`,
      [workspace.workspaceId],
    );
    expect(settings).toHaveLength(2);
    expect(settings[0].before).toBeNull();
    expect(settings[1].after).toMatchObject({ defaultRole: 'member' });
    expect(JSON.stringify(settings)).not.toContain(CLIENT.client_secret);
  });

  it('the first sign-in through the provider makes the user a member with the default role (just in time); the next finds the same user', async () => {
    const workspace = await ssoWorkspace({ defaultRole: 'viewer' });
    const login = unique('alice');
    const email = `alice@${workspace.domain}`;
    const first = signedIn(await signIn(workspace.workspaceId, login, email));
    const members = await t.http().get('/v1/workspace/members').set(first.session);
    expectMatchesSpec(members, 'listMembers');
    expect(members.status).toBe(200);
    const alice = (members.body.data as Array<{ email: string; role: string; id: string }>).find(
      (member) => member.email === email,
    );
    expect(alice?.role).toBe('viewer');
    // A viewer: reading is allowed, uploading is not.
    const upload = await t
      .http()
      .post('/v1/vocabularies')
      .set(first.session)
      .send({ name: 'x', terms: ['y'] });
    expect(upload.status).toBe(403);

    const second = signedIn(await signIn(workspace.workspaceId, login, email));
    const profile = await t.http().get('/v1/account/profile').set(second.session);
    expect(profile.status).toBe(200);
    const users = await db.query<Array<{ count: string }>>('SELECT count(*) FROM users WHERE email = $1', [
      email,
    ]);
    expect(users[0].count).toBe('1');
    const actions = await auditActions(workspace.workspaceId);
    expect(actions.filter((action) => action === 'member.joined')).toHaveLength(1);
    expect(actions.filter((action) => action === 'sso.sign_in')).toHaveLength(2);
  });

  it('a wrong state, a missing state cookie, a replayed callback and a code from another login are refused', async () => {
    const workspace = await ssoWorkspace();
    const login = unique('mallory');
    await provider.setAccount(login, { email: `mallory@${workspace.domain}` });

    const tampered = await atProvider(workspace.workspaceId, login);
    const wrongState = new URLSearchParams(tampered.callback.search);
    wrongState.set('state', 'not-the-state-this-browser-started-with');
    refused(await complete(`?${wrongState.toString()}`, tampered.stateCookie), 'state');
    const noCookie = await atProvider(workspace.workspaceId, login);
    refused(await complete(noCookie.callback.search, null), 'state');

    // The same answer twice (same cookie): the provider refuses its used code.
    const once = await atProvider(workspace.workspaceId, login);
    signedIn(await complete(once.callback.search, once.stateCookie));
    refused(await complete(once.callback.search, once.stateCookie), 'provider');

    // A code of one login with the state of another: the PKCE verifier does not match.
    const first = await atProvider(workspace.workspaceId, login);
    const second = await atProvider(workspace.workspaceId, login);
    const mixed = new URLSearchParams(first.callback.search);
    mixed.set('state', new URLSearchParams(second.callback.search).get('state')!);
    refused(await complete(`?${mixed.toString()}`, second.stateCookie), 'provider');
    signedIn(await complete(first.callback.search, first.stateCookie));

    const reasons = await db.query<Array<{ reason: string }>>(
      `SELECT details->>'reason' AS reason FROM audit_events
       WHERE workspace_id = $1 AND action = 'sso.sign_in_failed' ORDER BY at`,
      [workspace.workspaceId],
    );
    // A refused state names no workspace (nothing proves which one): only the later two are audited.
    expect(reasons.map((row) => row.reason)).toEqual(['provider', 'provider']);
  });

  it('an ID token signed by a key the issuer does not publish is refused', async () => {
    const workspace = await ssoWorkspace();
    await provider.publishForeignKey(true);
    try {
      const answer = await signIn(workspace.workspaceId, unique('eve'), `eve@${workspace.domain}`);
      refused(answer, 'token');
    } finally {
      await provider.publishForeignKey(false);
    }
    expect(await auditActions(workspace.workspaceId)).toContain('sso.sign_in_failed');
  });

  it('an email outside the allowed domains, or one the provider does not vouch for, is refused', async () => {
    const workspace = await ssoWorkspace();
    refused(await signIn(workspace.workspaceId, unique('out'), 'someone@elsewhere.example'), 'email-domain');
    refused(
      await signIn(workspace.workspaceId, unique('unverified'), `unverified@${workspace.domain}`, false),
      'email-unverified',
    );
    const members = await db.query<Array<{ count: string }>>(
      'SELECT count(*) FROM workspace_members WHERE workspace_id = $1',
      [workspace.workspaceId],
    );
    expect(members[0].count).toBe('1');
  });

  it('SSO required: a member’s password is refused, an owner breaks glass (audited), other tokens are refused there', async () => {
    const workspace = await ssoWorkspace({ ssoRequired: true });
    const memberEmail = `bob@${workspace.domain}`;
    const member = await t.createWorkspace({
      name: 'Bob elsewhere',
      email: memberEmail,
      passwordHash: await hashPassword(PASSWORD),
    });
    await db.query(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'member')`, [
      workspace.workspaceId,
      member.userId,
    ]);
    await makeActive(member.userId, workspace.workspaceId);

    // Bob also has a workspace without SSO: his password signs him in there, never in the SSO one.
    const elsewhere = await t.http().post('/v1/auth/login').send({ email: memberEmail, password: PASSWORD });
    expectMatchesSpec(elsewhere, 'login');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data.workspace.id).toBe(member.workspaceId);
    const passwordSession = bearer(elsewhere.body.data.accessToken);
    const switchBack = await t
      .http()
      .post(`/v1/workspaces/${workspace.workspaceId}/activate`)
      .set(passwordSession);
    expectMatchesSpec(switchBack, 'activateWorkspace');
    expect(switchBack.status).toBe(403);
    expect(switchBack.body.type).toBe(`${PROBLEMS}/sso-required`);

    // Without that other workspace, the password is refused.
    await db.query('DELETE FROM workspace_members WHERE workspace_id = $1', [member.workspaceId]);
    const refusedLogin = await t
      .http()
      .post('/v1/auth/login')
      .send({ email: memberEmail, password: PASSWORD });
    expectMatchesSpec(refusedLogin, 'login');
    expect(refusedLogin.status).toBe(403);
    expect(refusedLogin.body.type).toBe(`${PROBLEMS}/sso-required`);
    // An operator's token (no sign-in) is refused there too.
    await makeActive(member.userId, workspace.workspaceId);
    const operatorToken = await t
      .http()
      .get('/v1/transcriptions')
      .set(bearer(t.issueToken(member.userId)));
    expectMatchesSpec(operatorToken, 'listTranscriptions');
    expect(operatorToken.status).toBe(403);
    expect(operatorToken.body.type).toBe(`${PROBLEMS}/sso-required`);

    // Through SSO, Bob (same email: linked) is in.
    const viaSso = signedIn(await signIn(workspace.workspaceId, unique('bob'), memberEmail));
    expect((await t.http().get('/v1/transcriptions').set(viaSso.session)).status).toBe(200);

    // An invitation still makes the membership, but its password sign-in is refused there.
    const invited = await t
      .http()
      .post('/v1/workspace/invitations')
      .set(workspace.session)
      .send({ email: `newbie@${workspace.domain}`, role: 'member' });
    expect(invited.status).toBe(201);
    const accepted = await t
      .http()
      .post('/v1/auth/invitations/accept')
      .send({ token: invited.body.data.token, password: PASSWORD });
    expectMatchesSpec(accepted, 'acceptInvitation');
    expect(accepted.status).toBe(403);
    expect(accepted.body.type).toBe(`${PROBLEMS}/sso-required`);

    // The owner's password still works: the audited break-glass path.
    const owner = await t
      .http()
      .post('/v1/auth/login')
      .send({ email: workspace.ownerEmail, password: PASSWORD });
    expectMatchesSpec(owner, 'login');
    expect(owner.status).toBe(200);
    expect(owner.body.data.workspace.id).toBe(workspace.workspaceId);
    expect(await auditActions(workspace.workspaceId)).toContain('auth.break_glass_sign_in');
  });

  it('a sign-in through SSO acts in its workspace only', async () => {
    const workspace = await ssoWorkspace();
    const email = `carol@${workspace.domain}`;
    const own = await t.createWorkspace({ name: 'Carol own', email });
    const viaSso = signedIn(await signIn(workspace.workspaceId, unique('carol'), email));
    const workspaces = await t.http().get('/v1/workspaces').set(viaSso.session);
    expectMatchesSpec(workspaces, 'listWorkspaces');
    const active = (workspaces.body.data as Array<{ id: string; active: boolean }>).filter(
      (item) => item.active,
    );
    expect(active.map((item) => item.id)).toEqual([workspace.workspaceId]);
    const away = await t.http().post(`/v1/workspaces/${own.workspaceId}/activate`).set(viaSso.session);
    expectMatchesSpec(away, 'activateWorkspace');
    expect(away.status).toBe(403);
    // Her own active workspace changing elsewhere does not move the SSO sign-in.
    await makeActive(own.userId, own.workspaceId);
    const profile = await t.http().get('/v1/account/profile').set(viaSso.session);
    expect(profile.status).toBe(200);
    expect(JSON.stringify(profile.body)).toContain(workspace.workspaceId);
  });

  it('access ends: disabled at the provider (at the next refresh), removed from the workspace, the setting removed (at once)', async () => {
    const workspace = await ssoWorkspace();
    const login = unique('dave');
    const email = `dave@${workspace.domain}`;
    const first = signedIn(await signIn(workspace.workspaceId, login, email));
    const refreshed = await t.http().post('/v1/auth/refresh').set('Cookie', `stt_refresh=${first.refresh}`);
    expectMatchesSpec(refreshed, 'refreshSession');
    expect(refreshed.status).toBe(200);
    await provider.setAccount(login, { email, disabled: true });
    const refusedRefresh = await t
      .http()
      .post('/v1/auth/refresh')
      .set('Cookie', `stt_refresh=${cookieValue(refreshed, 'stt_refresh')}`);
    expectMatchesSpec(refusedRefresh, 'refreshSession');
    expect(refusedRefresh.status).toBe(401);
    expect(refusedRefresh.body.type).toBe(`${PROBLEMS}/invalid-refresh-token`);
    const after = await t.http().get('/v1/transcriptions').set(bearer(refreshed.body.data.accessToken));
    expect(after.status).toBe(401);

    await provider.setAccount(login, { email });
    const second = signedIn(await signIn(workspace.workspaceId, login, email));
    const daveId = (
      await db.query<Array<{ id: string }>>('SELECT id FROM users WHERE email = $1', [email])
    )[0].id;
    const removed = await t.http().delete(`/v1/workspace/members/${daveId}`).set(workspace.session);
    expect(removed.status).toBe(204);
    expect((await t.http().get('/v1/transcriptions').set(second.session)).status).toBe(403);

    const erin = signedIn(await signIn(workspace.workspaceId, unique('erin'), `erin@${workspace.domain}`));
    expect((await t.http().get('/v1/transcriptions').set(erin.session)).status).toBe(200);
    const deleted = await t.http().delete('/v1/workspace/sso').set(workspace.session);
    expectMatchesSpec(deleted, 'deleteSsoConnection');
    expect(deleted.status).toBe(204);
    const ended = await t.http().get('/v1/transcriptions').set(erin.session);
    expect(ended.status).toBe(401);
    expect(ended.body.type).toBe(`${PROBLEMS}/invalid-token`);
    const gone = await t.http().get('/v1/workspace/sso').set(workspace.session);
    expectMatchesSpec(gone, 'getSsoConnection');
    expect(gone.status).toBe(200);
    expect(gone.body.data).toBeNull();
    const again = await t.http().delete('/v1/workspace/sso').set(workspace.session);
    expectMatchesSpec(again, 'deleteSsoConnection');
    expect(again.status).toBe(404);
    const start = await t.http().get(`/v1/auth/sso/start?workspace=${workspace.workspaceId}`);
    expectMatchesSpec(start, 'startSsoSignIn');
    expect(start.status).toBe(404);
  });

  it('a provider that cannot be reached at a refresh is a 503 that ends nothing and renews nothing', async () => {
    const outage = await startOidcProvider([CLIENT]);
    try {
      const workspace = await ssoWorkspace({}, outage);
      const frank = signedIn(
        await signIn(workspace.workspaceId, unique('frank'), `frank@${workspace.domain}`, true, outage),
      );
      await outage.stop();
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const refresh = await t.http().post('/v1/auth/refresh').set('Cookie', `stt_refresh=${frank.refresh}`);
        expectMatchesSpec(refresh, 'refreshSession');
        // The second is no replay (its rotation was undone) and gets no successor unasked.
        expect(refresh.status).toBe(503);
      }
      // The sign-in was not ended: its access token still works until it expires.
      expect((await t.http().get('/v1/transcriptions').set(frank.session)).status).toBe(200);
      expect(await auditActions(workspace.workspaceId)).not.toContain('auth.refresh_token_reused');
    } finally {
      await outage.stop();
    }
  });

  it('removing the setting wins a race with a sign-in completing through it', async () => {
    const workspace = await ssoWorkspace();
    const login = unique('gina');
    await provider.setAccount(login, { email: `gina@${workspace.domain}` });
    const { callback, stateCookie } = await atProvider(workspace.workspaceId, login);
    // A removal in progress: the setting's row held as DELETE /v1/workspace/sso holds it.
    const removal = db.createQueryRunner();
    await removal.connect();
    await removal.startTransaction();
    try {
      await removal.query('SELECT 1 FROM sso_connections WHERE workspace_id = $1 FOR UPDATE', [
        workspace.workspaceId,
      ]);
      const answer = complete(callback.search, stateCookie).then((response) => response);
      // The sign-in waits on the setting (it takes it before making the sign-in)...
      await eventually(
        'the sign-in waiting on the SSO setting',
        async () =>
          (
            await db.query<unknown[]>(
              `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM sso_connections%FOR SHARE%'`,
            )
          ).length > 0,
        10_000,
        50,
      );
      // ...so the removal, committing first, leaves it nothing to make.
      await removal.query('DELETE FROM sso_connections WHERE workspace_id = $1', [workspace.workspaceId]);
      await removal.commitTransaction();
      refused(await answer, 'not-configured');
    } finally {
      if (removal.isTransactionActive) await removal.rollbackTransaction();
      await removal.release();
    }
    const signIns = await db.query<unknown[]>('SELECT 1 FROM sso_sign_ins WHERE workspace_id = $1', [
      workspace.workspaceId,
    ]);
    expect(signIns).toHaveLength(0);
  });
});
