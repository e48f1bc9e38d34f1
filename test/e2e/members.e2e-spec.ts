import { DataSource } from 'typeorm';
import { expectMatchesSpec } from '../support/openapi-contract';
import { createUserWithPassword } from '../support/sessions';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { insertTranscription } from '../support/transcriptions';

const PROBLEMS = 'https://errors.transcription.example/problems';
const PASSWORD = 'a long enough test password';

/**
 * Enterprise workspaces (issue 32): members with roles from the one permission table, invitations (single-use,
 * revocable, resendable), the last owner kept, removal ending access at once, workspace switching. Every
 * answer is checked against openapi.yaml.
 */
describe('Workspace members, roles and invitations', () => {
  let t: TestApp;
  let db: DataSource;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  let counter = 0;
  const email = (label: string): string => `${label}-${Date.now()}-${(counter += 1)}@example.com`;

  /** The owner's session and workspace. */
  async function ownerSession(): Promise<{
    workspaceId: string;
    userId: string;
    session: Record<string, string>;
  }> {
    const owner = await t.createWorkspace({ name: 'Members', email: email('owner') });
    return {
      workspaceId: owner.workspaceId,
      userId: owner.userId,
      session: bearer(t.issueToken(owner.userId)),
    };
  }

  async function invite(session: Record<string, string>, address: string, role: string) {
    const invited = await t
      .http()
      .post('/v1/workspace/invitations')
      .set(session)
      .send({ email: address, role });
    expectMatchesSpec(invited, 'createInvitation');
    return invited;
  }

  /** Invites and accepts as a new account: the new member's access token and user id. */
  async function join(
    session: Record<string, string>,
    role: string,
  ): Promise<{ token: Record<string, string>; userId: string; email: string }> {
    const address = email(role);
    const invited = await invite(session, address, role);
    expect(invited.status).toBe(201);
    const accepted = await t
      .http()
      .post('/v1/auth/invitations/accept')
      .send({ token: invited.body.data.token, password: PASSWORD, name: `A ${role}` });
    expectMatchesSpec(accepted, 'acceptInvitation');
    expect(accepted.status).toBe(200);
    return {
      token: bearer(accepted.body.data.accessToken as string),
      userId: accepted.body.data.user.id as string,
      email: address,
    };
  }

  it('invites a new person, who signs up with the token once and acts with the invited role', async () => {
    const { workspaceId, session } = await ownerSession();
    const address = email('new');
    const invited = await invite(session, address, 'member');
    expect(invited.status).toBe(201);
    expect(invited.body.data).toMatchObject({ email: address, role: 'member', status: 'pending' });
    const token = invited.body.data.token as string;
    const listed = await t.http().get('/v1/workspace/invitations').set(session);
    expectMatchesSpec(listed, 'listInvitations');
    expect(JSON.stringify(listed.body)).not.toContain(token);

    const accepted = await t.http().post('/v1/auth/invitations/accept').send({ token, password: PASSWORD });
    expectMatchesSpec(accepted, 'acceptInvitation');
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.workspace.id).toBe(workspaceId);
    const member = bearer(accepted.body.data.accessToken as string);
    const profile = await t.http().get('/v1/account/profile').set(member);
    expect(profile.status).toBe(200);
    expect(profile.body.data.email).toBe(address);

    // Single use: the same token again is refused, as is a token never issued.
    const replay = await t.http().post('/v1/auth/invitations/accept').send({ token, password: PASSWORD });
    expectMatchesSpec(replay, 'acceptInvitation');
    expect(replay.status).toBe(404);
    const members = await t.http().get('/v1/workspace/members').set(session);
    expectMatchesSpec(members, 'listMembers');
    expect((members.body.data as Array<{ email: string; role: string }>).map((m) => m.role)).toEqual([
      'owner',
      'member',
    ]);
    const events = await t.http().get('/v1/audit-events?limit=50').set(session);
    const actions = (events.body.data as Array<{ action: string }>).map((event) => event.action);
    expect(actions).toEqual(expect.arrayContaining(['member.invited', 'member.joined']));
    // No secret in the audit log: the token never enters it.
    expect(JSON.stringify(events.body)).not.toContain(token);
  });

  it('an existing user joins with their own password (a wrong one is 401) and switches between workspaces', async () => {
    const { workspaceId, session } = await ownerSession();
    const existing = await createUserWithPassword(t, PASSWORD);
    const invited = await invite(session, existing.email, 'viewer');
    const wrong = await t
      .http()
      .post('/v1/auth/invitations/accept')
      .send({ token: invited.body.data.token, password: 'not the password at all' });
    expectMatchesSpec(wrong, 'acceptInvitation');
    expect(wrong.status).toBe(401);
    const accepted = await t
      .http()
      .post('/v1/auth/invitations/accept')
      .send({ token: invited.body.data.token, password: PASSWORD });
    expect(accepted.status).toBe(200);
    const user = bearer(accepted.body.data.accessToken as string);

    const workspaces = await t.http().get('/v1/workspaces').set(user);
    expectMatchesSpec(workspaces, 'listWorkspaces');
    expect(workspaces.body.data).toEqual(
      expect.arrayContaining([
        { id: existing.workspaceId, name: expect.any(String), role: 'owner', active: false },
        { id: workspaceId, name: 'Members', role: 'viewer', active: true },
      ]),
    );
    // As a viewer here: reading is allowed, uploading is not, and the answer names the permission.
    expect((await t.http().get('/v1/transcriptions').set(user)).status).toBe(200);
    const upload = await t
      .http()
      .post('/v1/transcriptions')
      .set(user)
      .attach('file', Buffer.from('x'), 'a.wav');
    expectMatchesSpec(upload, 'createTranscription');
    expect(upload.status).toBe(403);
    expect(upload.body).toMatchObject({ type: `${PROBLEMS}/forbidden`, permission: 'transcriptions:write' });

    const switched = await t.http().post(`/v1/workspaces/${existing.workspaceId}/activate`).set(user);
    expectMatchesSpec(switched, 'activateWorkspace');
    expect(switched.body.data).toMatchObject({ id: existing.workspaceId, role: 'owner', active: true });
    const profile = await t.http().get('/v1/account/profile').set(user);
    expect(profile.body.data.directory.id).toBe(existing.workspaceId);
    const elsewhere = await t
      .http()
      // Another id (its last digit changed, never to itself): not a workspace of the user.
      .post(`/v1/workspaces/${workspaceId.replace(/.$/, (last) => (last === '0' ? '1' : '0'))}/activate`)
      .set(user);
    expectMatchesSpec(elsewhere, 'activateWorkspace');
    expect(elsewhere.status).toBe(404);
  });

  it('revoking or resending an invitation ends the old token; a pending one only', async () => {
    const { session } = await ownerSession();
    const first = await invite(session, email('revoked'), 'member');
    const revoked = await t.http().delete(`/v1/workspace/invitations/${first.body.data.id}`).set(session);
    expectMatchesSpec(revoked, 'revokeInvitation');
    expect(revoked.status).toBe(204);
    const again = await t.http().delete(`/v1/workspace/invitations/${first.body.data.id}`).set(session);
    expectMatchesSpec(again, 'revokeInvitation');
    expect(again.status).toBe(409);
    expect(again.body.type).toBe(`${PROBLEMS}/member-conflict`);
    const refused = await t
      .http()
      .post('/v1/auth/invitations/accept')
      .send({ token: first.body.data.token, password: PASSWORD });
    expect(refused.status).toBe(404);

    const second = await invite(session, email('resent'), 'member');
    const resent = await t
      .http()
      .post(`/v1/workspace/invitations/${second.body.data.id}/resend`)
      .set(session);
    expectMatchesSpec(resent, 'resendInvitation');
    expect(resent.body.data.token).not.toBe(second.body.data.token);
    const old = await t
      .http()
      .post('/v1/auth/invitations/accept')
      .send({ token: second.body.data.token, password: PASSWORD });
    expect(old.status).toBe(404);
    const fresh = await t
      .http()
      .post('/v1/auth/invitations/accept')
      .send({ token: resent.body.data.token, password: PASSWORD });
    expect(fresh.status).toBe(200);
  });

  it('keeps an owner: admins cannot touch owners, the last owner cannot be demoted, removed or leave; ownership moves by an owner', async () => {
    const { userId: ownerId, session } = await ownerSession();
    const admin = await join(session, 'admin');
    const makeOwner = await t
      .http()
      .patch(`/v1/workspace/members/${admin.userId}`)
      .set(admin.token)
      .send({ role: 'owner' });
    expectMatchesSpec(makeOwner, 'updateMember');
    expect(makeOwner.status).toBe(403);
    expect(makeOwner.body.permission).toBe('members:owner');
    const demoteOwner = await t
      .http()
      .patch(`/v1/workspace/members/${ownerId}`)
      .set(admin.token)
      .send({ role: 'viewer' });
    expect(demoteOwner.status).toBe(403);
    const inviteOwner = await invite(admin.token, email('owner2'), 'owner');
    expect(inviteOwner.status).toBe(403);

    const self = await t
      .http()
      .patch(`/v1/workspace/members/${ownerId}`)
      .set(session)
      .send({ role: 'admin' });
    expectMatchesSpec(self, 'updateMember');
    expect(self.status).toBe(409);
    expect(self.body.type).toBe(`${PROBLEMS}/member-conflict`);
    const leave = await t.http().delete('/v1/workspace/membership').set(session);
    expectMatchesSpec(leave, 'leaveWorkspace');
    expect(leave.status).toBe(409);

    // The owner makes the admin owner, then steps down: the workspace always had an owner.
    const promoted = await t
      .http()
      .patch(`/v1/workspace/members/${admin.userId}`)
      .set(session)
      .send({ role: 'owner' });
    expectMatchesSpec(promoted, 'updateMember');
    expect(promoted.status).toBe(200);
    expect(promoted.body.data.role).toBe('owner');
    const stepDown = await t
      .http()
      .patch(`/v1/workspace/members/${ownerId}`)
      .set(session)
      .send({ role: 'admin' });
    expect(stepDown.status).toBe(200);
    // Now an admin, the former owner can no longer change the new owner.
    const back = await t
      .http()
      .patch(`/v1/workspace/members/${admin.userId}`)
      .set(session)
      .send({ role: 'admin' });
    expect(back.status).toBe(403);
    const [audit] = await db.query<Array<{ before: unknown; after: unknown }>>(
      `SELECT before, after FROM audit_events WHERE action = 'member.role_changed' AND target_id = $1 ORDER BY at LIMIT 1`,
      [admin.userId],
    );
    expect(audit).toEqual({ before: { role: 'admin' }, after: { role: 'owner' } });
  });

  it('removing a member ends their access at the next request; the keys they created stay, listed on the member', async () => {
    const { workspaceId, session } = await ownerSession();
    const member = await join(session, 'member');
    const key = await t.http().post('/v1/api-keys').set(member.token).send({ name: 'member key' });
    expect(key.status).toBe(201);
    // A member's key holds at most a member's scopes by default.
    expect(key.body.data.scopes).toEqual([
      'transcriptions:read',
      'transcriptions:write',
      'vocabularies',
      'account:read',
    ]);
    const detail = await t.http().get(`/v1/workspace/members/${member.userId}`).set(session);
    expectMatchesSpec(detail, 'getMember');
    expect(detail.body.data.apiKeys).toEqual([
      {
        id: key.body.data.id,
        name: 'member key',
        prefix: key.body.data.prefix,
        scopes: key.body.data.scopes,
      },
    ]);
    expect((await t.http().get('/v1/transcriptions').set(member.token)).status).toBe(200);

    const removed = await t.http().delete(`/v1/workspace/members/${member.userId}`).set(session);
    expectMatchesSpec(removed, 'removeMember');
    expect(removed.status).toBe(204);
    const after = await t.http().get('/v1/transcriptions').set(member.token);
    expectMatchesSpec(after, 'listTranscriptions');
    expect(after.status).toBe(403);
    // The key is the workspace's: it works until an admin revokes it.
    expect(
      (
        await t
          .http()
          .get('/v1/transcriptions')
          .set(bearer(key.body.data.key as string))
      ).status,
    ).toBe(200);
    const [event] = await db.query<Array<{ details: { apiKeysKept: string[] } }>>(
      `SELECT details FROM audit_events WHERE workspace_id = $1 AND action = 'member.removed'`,
      [workspaceId],
    );
    expect(event.details.apiKeysKept).toEqual([key.body.data.id]);
    const gone = await t.http().get(`/v1/workspace/members/${member.userId}`).set(session);
    expect(gone.status).toBe(404);
  });

  it('a member deletes their own transcriptions, not others; an admin deletes any', async () => {
    const { workspaceId, userId: ownerId, session } = await ownerSession();
    const member = await join(session, 'member');
    const own = await insertTranscription(t, workspaceId, { userId: member.userId });
    const others = await insertTranscription(t, workspaceId, { userId: ownerId });
    const refused = await t.http().delete(`/v1/transcriptions/${others.id}`).set(member.token);
    expectMatchesSpec(refused, 'deleteTranscription');
    expect(refused.status).toBe(403);
    expect(refused.body.permission).toBe('transcriptions:delete-any');
    expect((await t.http().delete(`/v1/transcriptions/${own.id}`).set(member.token)).status).toBe(204);
    const admin = await join(session, 'admin');
    expect((await t.http().delete(`/v1/transcriptions/${others.id}`).set(admin.token)).status).toBe(204);
  });

  it('scoped keys: within the creator, refused beyond their scopes, and only from their allowed networks', async () => {
    const { session } = await ownerSession();
    const member = await join(session, 'member');
    const beyond = await t
      .http()
      .post('/v1/api-keys')
      .set(member.token)
      .send({ name: 'hooks', scopes: ['webhooks'] });
    expectMatchesSpec(beyond, 'createApiKey');
    expect(beyond.status).toBe(403);
    expect(beyond.body.permission).toBe('webhooks');

    const readOnly = await t
      .http()
      .post('/v1/api-keys')
      .set(member.token)
      .send({ name: 'reader', scopes: ['transcriptions:read'] });
    expect(readOnly.status).toBe(201);
    const reader = bearer(readOnly.body.data.key as string);
    expect((await t.http().get('/v1/transcriptions').set(reader)).status).toBe(200);
    const upload = await t
      .http()
      .post('/v1/transcriptions')
      .set(reader)
      .attach('file', Buffer.from('x'), 'a.wav');
    expect(upload.status).toBe(403);
    expect(upload.body.permission).toBe('transcriptions:write');
    const openai = await t
      .http()
      .post('/v1/audio/transcriptions')
      .set(reader)
      .attach('file', Buffer.from('x'), 'a.wav');
    expect(openai.status).toBe(403);

    const fenced = await t
      .http()
      .post('/v1/api-keys')
      .set(session)
      .send({ name: 'office only', scopes: ['account:read'], allowedNetworks: ['10.0.0.0/8'] });
    expect(fenced.status).toBe(201);
    expect(fenced.body.data.allowedNetworks).toEqual(['10.0.0.0/8']);
    const outside = await t
      .http()
      .get('/v1/account/balance')
      .set(bearer(fenced.body.data.key as string));
    expectMatchesSpec(outside, 'getBalance');
    expect(outside.status).toBe(403);
    const loopback = await t
      .http()
      .post('/v1/api-keys')
      .set(session)
      .send({ name: 'here', scopes: ['account:read'], allowedNetworks: ['127.0.0.0/8', '::1'] });
    expect(
      (
        await t
          .http()
          .get('/v1/account/balance')
          .set(bearer(loopback.body.data.key as string))
      ).status,
    ).toBe(200);
    const badCidr = await t
      .http()
      .post('/v1/api-keys')
      .set(session)
      .send({ name: 'bad', allowedNetworks: ['10.0.0.1/8'] });
    expectMatchesSpec(badCidr, 'createApiKey');
    expect(badCidr.status).toBe(422);
    expect(badCidr.body.errors.fieldErrors['allowedNetworks[0]']).toBeDefined();

    // A member sees and revokes only their own keys; the owner sees all.
    const memberList = await t.http().get('/v1/api-keys').set(member.token);
    expect((memberList.body.data as Array<{ id: string }>).map((k) => k.id)).toEqual([readOnly.body.data.id]);
    const notTheirs = await t.http().delete(`/v1/api-keys/${fenced.body.data.id}`).set(member.token);
    expect(notTheirs.status).toBe(404);
    const notTheirLog = await t.http().get(`/v1/api-keys/${fenced.body.data.id}/requests`).set(member.token);
    expectMatchesSpec(notTheirLog, 'listApiKeyRequests');
    expect(notTheirLog.status).toBe(404);
    const ownerList = await t.http().get('/v1/api-keys').set(session);
    expect((ownerList.body.data as Array<{ id: string }>).map((k) => k.id)).toEqual(
      expect.arrayContaining([readOnly.body.data.id, fenced.body.data.id]),
    );
    // A viewer cannot make keys at all.
    const viewer = await join(session, 'viewer');
    const viewerKey = await t.http().post('/v1/api-keys').set(viewer.token).send({ name: 'v' });
    expect(viewerKey.status).toBe(403);
    expect(viewerKey.body.permission).toBe('keys:own');
  });
});
