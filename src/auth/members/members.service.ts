import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ssoRequiredRefusesSql } from '../sso/sso-sign-in-rules';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { User } from '../../account/user.entity';
import { AuditLog } from '../../audit/audit-log.service';
import { missingPermission } from '../authentication.guard';
import { ApiKey } from '../api-key.entity';
import { Role, roleManageable } from '../../common/principal/permission-table';
import type { Principal } from '../../common/principal/principal';
import { ProblemException } from '../../common/problem/problem.exception';
import type { Schema } from '../../openapi/contract-types';
import { WorkspaceInvitation } from './workspace-invitation.entity';
import { WorkspaceMember } from './workspace-member.entity';

export type MemberView = Schema<'Member'>;
export type InvitationView = Schema<'Invitation'>;

/** How long an invitation's token is valid (a resend starts it again). */
export const INVITATION_TTL_DAYS = 7;
export const INVITATION_TOKEN_PREFIX = 'inv_';

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Members of a workspace, their roles, and invitations. The rules: only an owner gives or takes the owner role
 * (permission `members:owner`); a workspace always keeps an owner (the last one can be neither demoted nor
 * removed, nor leave); a removed member loses access at the next request (membership is read by every request
 * and by every open realtime session), and the keys they created stay until an admin revokes them (listed on the
 * member). Every change writes its audit event in its own transaction.
 */
@Injectable()
export class MembersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
  ) {}

  async list(workspaceId: string): Promise<MemberView[]> {
    const rows = await this.dataSource.query<MemberRow[]>(
      `${MEMBER_SELECT} WHERE member.workspace_id = $1 ORDER BY member.joined_on, member.user_id`,
      [workspaceId],
    );
    return rows.map(toMemberView);
  }

  /** A member, with the live API keys they created (they stay when the member leaves; admins revoke them). */
  async get(workspaceId: string, userId: string): Promise<Schema<'MemberDetail'>> {
    return {
      ...(await this.member(workspaceId, userId)),
      apiKeys: await this.keysCreatedBy(this.dataSource.manager, workspaceId, userId),
    };
  }

  async changeRole(principal: Principal, userId: string, role: Role): Promise<MemberView> {
    await this.dataSource.transaction(async (tx) => {
      const { target, soleOwner } = await lockForChange(tx, principal.workspaceId, userId);
      this.assertMayManage(principal, target.role);
      this.assertMayManage(principal, role);
      if (target.role === role) return;
      if (soleOwner) throw lastOwner('demoted');
      await tx.update(WorkspaceMember, { workspaceId: principal.workspaceId, userId }, { role });
      await this.audit.record(tx, {
        principal,
        action: 'member.role_changed',
        target: { type: 'member', id: userId },
        before: { role: target.role },
        after: { role },
      });
    });
    return this.member(principal.workspaceId, userId);
  }

  /** Removes a member (`member.removed`), or the caller itself (`member.left`, no permission needed). */
  async remove(principal: Principal, userId: string): Promise<void> {
    const leaving = principal.userId === userId;
    await this.dataSource.transaction(async (tx) => {
      const { target, soleOwner } = await lockForChange(tx, principal.workspaceId, userId);
      if (!leaving) this.assertMayManage(principal, target.role);
      if (soleOwner) throw lastOwner(leaving ? 'leave' : 'removed');
      await tx.delete(WorkspaceMember, { workspaceId: principal.workspaceId, userId });
      // The user acts in another workspace of theirs from now on, or in none.
      await tx.query(
        `UPDATE users SET active_workspace_id = (SELECT workspace_id FROM workspace_members WHERE user_id = $1
           ORDER BY joined_on LIMIT 1) WHERE id = $1 AND active_workspace_id = $2`,
        [userId, principal.workspaceId],
      );
      const keys = await this.keysCreatedBy(tx, principal.workspaceId, userId);
      await this.audit.record(tx, {
        principal,
        action: leaving ? 'member.left' : 'member.removed',
        target: { type: 'member', id: userId },
        before: { role: target.role },
        details: { apiKeysKept: keys.map((key) => key.id) },
      });
    });
  }

  /** One member as `listMembers` shows them (updateMember's answer: no keys). */
  private async member(workspaceId: string, userId: string): Promise<MemberView> {
    const [row] = await this.dataSource.query<MemberRow[]>(
      `${MEMBER_SELECT} WHERE member.workspace_id = $1 AND member.user_id = $2`,
      [workspaceId, userId],
    );
    if (!row) throw ProblemException.notFound('The member');
    return toMemberView(row);
  }

  async listInvitations(workspaceId: string): Promise<InvitationView[]> {
    const invitations = await this.dataSource.getRepository(WorkspaceInvitation).find({
      where: { workspaceId },
      order: { createdOn: 'DESC', id: 'DESC' },
    });
    return invitations.map(toInvitationView);
  }

  /** A new invitation; its token is in the answer only (stored as a hash). */
  async invite(principal: Principal, email: string, role: Role): Promise<InvitationView & { token: string }> {
    this.assertMayManage(principal, role);
    const normalised = email.trim().toLowerCase();
    const token = newToken();
    const invitation = await this.dataSource.transaction(async (tx) => {
      const member: unknown[] = await tx.query(
        `SELECT 1 FROM workspace_members member JOIN users ON users.id = member.user_id
         WHERE member.workspace_id = $1 AND users.email = $2`,
        [principal.workspaceId, normalised],
      );
      if (member.length > 0)
        throw ProblemException.field('email', 'This email is already a member of the workspace.');
      const repository = tx.getRepository(WorkspaceInvitation);
      const saved = await repository.save(
        repository.create({
          workspaceId: principal.workspaceId,
          email: normalised,
          role,
          tokenHash: hashInvitationToken(token),
          invitedBy: principal.userId,
          expiresOn: expiry(),
          acceptedOn: null,
          revokedOn: null,
        }),
      );
      await this.audit.record(tx, {
        principal,
        action: 'member.invited',
        target: { type: 'invitation', id: saved.id },
        after: { email: normalised, role },
      });
      return saved;
    });
    return { ...toInvitationView(invitation), token };
  }

  async revokeInvitation(principal: Principal, id: string): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      const invitation = await this.pendingInvitation(tx, principal.workspaceId, id);
      this.assertMayManage(principal, invitation.role);
      await tx.update(WorkspaceInvitation, { id }, { revokedOn: new Date() });
      await this.audit.record(tx, {
        principal,
        action: 'invitation.revoked',
        target: { type: 'invitation', id },
        before: { email: invitation.email, role: invitation.role },
      });
    });
  }

  /** A new token (the old one stops working) and a new expiry. */
  async resendInvitation(principal: Principal, id: string): Promise<InvitationView & { token: string }> {
    const token = newToken();
    const invitation = await this.dataSource.transaction(async (tx) => {
      const pending = await this.pendingInvitation(tx, principal.workspaceId, id);
      this.assertMayManage(principal, pending.role);
      const changes = { tokenHash: hashInvitationToken(token), expiresOn: expiry() };
      await tx.update(WorkspaceInvitation, { id }, changes);
      await this.audit.record(tx, {
        principal,
        action: 'invitation.resent',
        target: { type: 'invitation', id },
        details: { email: pending.email, role: pending.role },
      });
      return { ...pending, ...changes };
    });
    return { ...toInvitationView(invitation), token };
  }

  /** The invitation a token opens, if it may still be accepted (the email it was sent to decides the account). */
  async openInvitation(token: string): Promise<WorkspaceInvitation> {
    const invitation = await this.dataSource
      .getRepository(WorkspaceInvitation)
      .findOneBy({ tokenHash: hashInvitationToken(token) });
    if (!invitation || invitationStatus(invitation) !== 'pending') throw invitationGone();
    return invitation;
  }

  /**
   * Accepts an invitation: in one transaction the invitation is taken (locked, checked pending again, so a
   * token is used once however many race), `account` gives the user (an existing one whose password was
   * checked, or a new one it inserts), the membership is made with the invited role (a member already keeps
   * their role) and becomes the user's active workspace.
   */
  async accept(token: string, account: (tx: EntityManager, email: string) => Promise<User>): Promise<User> {
    return this.dataSource.transaction(async (tx) => {
      const invitation = await tx.getRepository(WorkspaceInvitation).findOne({
        where: { tokenHash: hashInvitationToken(token) },
        lock: { mode: 'pessimistic_write' },
      });
      if (!invitation || invitationStatus(invitation) !== 'pending') throw invitationGone();
      const user = await account(tx, invitation.email);
      await tx.update(WorkspaceInvitation, { id: invitation.id }, { acceptedOn: new Date() });
      await tx.query(
        `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [invitation.workspaceId, user.id, invitation.role],
      );
      await tx.update(User, { id: user.id }, { activeWorkspaceId: invitation.workspaceId });
      user.activeWorkspaceId = invitation.workspaceId;
      await this.audit.record(tx, {
        actor: { type: 'user', userId: user.id, apiKeyId: null, credential: 'password' },
        workspaceId: invitation.workspaceId,
        action: 'member.joined',
        target: { type: 'member', id: user.id },
        details: { invitationId: invitation.id, role: invitation.role },
      });
      return user;
    });
  }

  /** The workspaces a user belongs to, with the role in each. */
  async memberships(userId: string, actingWorkspaceId: string): Promise<Schema<'Membership'>[]> {
    const rows = await this.dataSource.query<
      Array<{ id: string; name: string; role: Role; active: boolean }>
    >(
      `SELECT workspace.id, workspace.name, member.role, workspace.id = $2 AS active
       FROM workspace_members member JOIN workspaces workspace ON workspace.id = member.workspace_id
       WHERE member.user_id = $1 ORDER BY member.joined_on, workspace.id`,
      [userId, actingWorkspaceId],
    );
    return rows.map((row) => ({ id: row.id, name: row.name, role: row.role, active: row.active === true }));
  }

  /** Makes a workspace of the user's the active one: the dashboard and the user's sign-ins act in it from now. */
  /**
   * Makes another of the user's workspaces the active one. A sign-in made through SSO acts in its workspace
   * only, so it cannot switch; a workspace whose SSO is required refuses a sign-in made otherwise (owners
   * excepted: the break-glass path), by the rule of src/auth/sso/sso-sign-in-rules.ts.
   */
  async switchTo(principal: Principal, workspaceId: string): Promise<Schema<'Membership'>> {
    const userId = principal.userId!;
    if (principal.viaSso && workspaceId !== principal.workspaceId) {
      throw new ProblemException(
        'forbidden',
        "A sign-in made through a workspace's single sign-on acts in that workspace only; sign in again to use another.",
      );
    }
    const rows = await this.dataSource.query<Array<{ refused: boolean }>>(
      `SELECT ${ssoRequiredRefusesSql('$2::uuid', 'member.role', '$3::uuid')} AS refused
       FROM workspace_members member WHERE member.user_id = $1 AND member.workspace_id = $2`,
      [userId, workspaceId, principal.signInId ?? null],
    );
    if (rows.length === 0) throw ProblemException.notFound('The workspace');
    if (rows[0].refused) {
      throw new ProblemException(
        'sso-required',
        "This workspace requires single sign-on: sign in through your company's identity provider.",
      );
    }
    const updated: [unknown[], number] = await this.dataSource.query(
      `UPDATE users SET active_workspace_id = $2 WHERE id = $1
         AND EXISTS (SELECT 1 FROM workspace_members WHERE user_id = $1 AND workspace_id = $2)`,
      [userId, workspaceId],
    );
    if (updated[1] === 0) throw ProblemException.notFound('The workspace');
    const membership = (await this.memberships(userId, workspaceId)).find((item) => item.id === workspaceId);
    if (!membership) throw ProblemException.notFound('The workspace');
    return membership;
  }

  /** Only an owner gives, changes or takes the owner role. */
  private assertMayManage(principal: Principal, role: Role): void {
    if (principal.role !== undefined ? roleManageable(principal.role, role) : role !== 'owner') return;
    throw missingPermission(principal, 'members:owner');
  }

  private async pendingInvitation(
    tx: EntityManager,
    workspaceId: string,
    id: string,
  ): Promise<WorkspaceInvitation> {
    const invitation = await tx.findOne(WorkspaceInvitation, {
      where: { id, workspaceId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!invitation) throw ProblemException.notFound('The invitation');
    const status = invitationStatus(invitation);
    if (status !== 'pending') {
      throw new ProblemException('member-conflict', `The invitation is ${status}; invite again instead.`);
    }
    return invitation;
  }

  private async keysCreatedBy(
    manager: EntityManager,
    workspaceId: string,
    userId: string,
  ): Promise<Schema<'MemberApiKey'>[]> {
    const keys = await manager.getRepository(ApiKey).find({
      where: { workspaceId, userId, revokedOn: IsNull() },
      order: { createdOn: 'DESC', id: 'DESC' },
    });
    return keys.map((key) => ({ id: key.id, name: key.name, prefix: key.prefix, scopes: key.scopes }));
  }
}

interface MemberRow {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  joined_on: Date;
}

const MEMBER_SELECT = `SELECT member.user_id, users.email, users.name, member.role, member.joined_on
  FROM workspace_members member JOIN users ON users.id = member.user_id`;

function toMemberView(row: MemberRow): MemberView {
  return {
    id: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role,
    joinedAt: new Date(row.joined_on).toISOString(),
  };
}

/**
 * A member about to be changed or removed, locked with the workspace's owners: of two changes that would each
 * leave one owner, the second sees the first. `soleOwner`: the member is the workspace's only owner.
 */
async function lockForChange(
  tx: EntityManager,
  workspaceId: string,
  userId: string,
): Promise<{ target: WorkspaceMember; soleOwner: boolean }> {
  const owners = await tx.query<Array<{ user_id: string }>>(
    `SELECT user_id FROM workspace_members WHERE workspace_id = $1 AND role = 'owner' ORDER BY user_id FOR UPDATE`,
    [workspaceId],
  );
  const target = await tx.findOne(WorkspaceMember, {
    where: { workspaceId, userId },
    lock: { mode: 'pessimistic_write' },
  });
  if (!target) throw ProblemException.notFound('The member');
  return { target, soleOwner: target.role === 'owner' && owners.length <= 1 };
}

function lastOwner(what: 'demoted' | 'removed' | 'leave'): ProblemException {
  return new ProblemException(
    'member-conflict',
    what === 'leave'
      ? 'The last owner cannot leave the workspace; make another member owner first.'
      : `The last owner cannot be ${what}; make another member owner first.`,
  );
}

function invitationGone(): ProblemException {
  return new ProblemException(
    'not-found',
    'The invitation is not known, was already used or revoked, or has expired; ask for a new one.',
  );
}

export function invitationStatus(invitation: WorkspaceInvitation): InvitationView['status'] {
  if (invitation.acceptedOn) return 'accepted';
  if (invitation.revokedOn) return 'revoked';
  if (invitation.expiresOn.getTime() <= Date.now()) return 'expired';
  return 'pending';
}

function toInvitationView(invitation: WorkspaceInvitation): InvitationView {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    status: invitationStatus(invitation),
    invitedBy: invitation.invitedBy,
    createdAt: invitation.createdOn.toISOString(),
    expiresAt: invitation.expiresOn.toISOString(),
  };
}

function newToken(): string {
  return `${INVITATION_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

function expiry(): Date {
  return new Date(Date.now() + INVITATION_TTL_DAYS * 86_400_000);
}
