import { MembersService } from '../members/members.service';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { AuditLog, anonymousActor, userActor } from '../../audit/audit-log.service';
import { User } from '../../account/user.entity';
import { Workspace } from '../../account/workspace.entity';
import { WorkspaceProvisioningService } from '../provisioning/workspace-provisioning.service';
import { ProblemException } from '../../common/problem/problem.exception';
import { AuthConfig } from '../auth.config';
import { DashboardSessionConfig } from './dashboard-session.config';
import { MetricsService } from '../../metrics/metrics.service';
import { TokenService } from '../token.service';
import { KnownDeviceService } from './known-device.service';
import { LoginThrottleService, SignInClient } from './login-throttle.service';
import {
  hashPassword,
  passwordProblem,
  prepareDummyHash,
  verifyAgainstDummy,
  verifyPassword,
} from './password-hasher';
import { RefreshToken } from './refresh-token.entity';
import { lockUserExclusive, lockUserShared } from '../sign-in-locks';
import { normaliseEmail } from '../email-address';
import type { Schema } from '../../openapi/contract-types';
import { SsoPerson, SsoService, SsoSignInRefused } from '../sso/sso.service';
import { SsoSignIn } from '../sso/sso-sign-in.entity';
import { ssoRequiredRefusesSql } from '../sso/sso-sign-in-rules';

export type SessionView = Schema<'SessionResponse'>['data'];

/** What a sign-in hands out: the answer body, and the refresh token for its cookie (never in the body). */
export interface IssuedSession {
  view: SessionView;
  refreshToken: string;
}

const INVALID_CREDENTIALS = 'The email or password is not correct.';
/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What a refresh token is derived with: a key of its own, from the server secret (one secret to keep). */
function successorKey(jwtSecret: string): Buffer {
  return createHmac('sha256', jwtSecret).update('stt refresh-token successor v1').digest();
}

/** Dashboard sign-in: passwords, access JWTs and rotating refresh tokens (docs/decisions.md). */
@Injectable()
export class SessionService implements OnModuleInit {
  private readonly logger = new Logger(SessionService.name);
  private readonly successorKey: Buffer;

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>,
    @InjectRepository(RefreshToken) private readonly refreshTokens: Repository<RefreshToken>,
    private readonly tokens: TokenService,
    private readonly throttle: LoginThrottleService,
    private readonly devices: KnownDeviceService,
    private readonly provisioning: WorkspaceProvisioningService,
    private readonly config: DashboardSessionConfig,
    auth: AuthConfig,
    private readonly metrics: MetricsService,
    private readonly audit: AuditLog,
    private readonly members: MembersService,
    private readonly sso: SsoService,
  ) {
    this.successorKey = successorKey(auth.JWT_SECRET);
  }

  async onModuleInit(): Promise<void> {
    await prepareDummyHash();
  }

  /**
   * Signs in, throttled per account and client before the password is checked (LoginThrottleService). The
   * answer carries a new device token for the stt_device cookie: the browser is a known device from then on.
   */
  async login(
    emailInput: string,
    password: string,
    client: SignInClient,
  ): Promise<IssuedSession & { deviceToken: string }> {
    return this.openSession(await this.verifyPassword(emailInput, password, client), 'password');
  }

  /**
   * The password check of a sign-in, throttled per account and client before the password is checked
   * (LoginThrottleService); a failure is counted and audited. Answers the user (with the hash checked).
   */
  async verifyPassword(emailInput: string, password: string, client: SignInClient): Promise<User> {
    const email = normaliseEmail(emailInput);
    const attempt = await this.throttle.admitSignIn(email, client);
    const user = await this.users
      .createQueryBuilder('user')
      .addSelect('user.passwordHash')
      .where('user.email = :email', { email })
      .getOne();
    // Unknown email and user without a password cost one verification too: timing tells nothing.
    const valid = user?.passwordHash
      ? await verifyPassword(user.passwordHash, password)
      : await verifyAgainstDummy(password);
    this.metrics.recordPasswordVerification(Boolean(user) && valid);
    if (!user || !valid) {
      await this.throttle.signInFailed(attempt);
      await this.recordFailedSignIn(user);
      throw new ProblemException('invalid-credentials', INVALID_CREDENTIALS);
    }
    await this.throttle.signInSucceeded(attempt);
    return user;
  }

  /**
   * A new sign-in of a user whose password (or invitation) was just checked. The answer carries a new device
   * token for the stt_device cookie: the browser is a known device from then on. `user.passwordHash`, when
   * selected, is the hash the password was checked against: a new password set meanwhile refuses this sign-in.
   */
  async openSession(
    user: User,
    method: 'password' | 'signup' | 'invitation',
  ): Promise<IssuedSession & { deviceToken: string }> {
    const workspace = await this.passwordWorkspace(user);
    const issued = await this.issue(user, randomUUID(), user.passwordHash ?? null, method, workspace);
    if (!issued) throw new ProblemException('invalid-credentials', INVALID_CREDENTIALS);
    return { ...issued, deviceToken: this.devices.issue(user.email) };
  }

  /**
   * A new sign-in through a workspace's single sign-on (the person SsoService found): it acts in that
   * workspace only (its `sso_sign_ins` row, inserted with its first refresh token), audited `sso.sign_in`.
   */
  async openSsoSession(person: SsoPerson): Promise<IssuedSession & { deviceToken: string }> {
    const workspace = await this.workspaces.findOneBy({ id: person.workspaceId });
    if (!workspace) throw new ProblemException('forbidden', 'The workspace no longer exists.');
    const issued = await this.issue(
      person.user,
      randomUUID(),
      null,
      'sso',
      { workspace, breakGlass: false },
      person,
    );
    if (!issued) {
      throw new SsoSignInRefused(
        'not-configured',
        'The single sign-on setting or the account was removed meanwhile.',
      );
    }
    return { ...issued, deviceToken: this.devices.issue(person.user.email) };
  }

  /**
   * Where a sign-in without SSO acts (src/auth/sso/sso-sign-in-rules.ts): the user's active workspace unless
   * its SSO is required and the user is not its owner, else the first of the user's workspaces where a password
   * may act (it becomes the active one); none: 403 `sso-required`. An owner signing in with a password where
   * SSO is required is the break-glass path, audited as such.
   */
  private async passwordWorkspace(user: User): Promise<{ workspace: Workspace; breakGlass: boolean }> {
    const rows = await this.workspaces.manager.query<
      Array<{ id: string; refused: boolean; required: boolean }>
    >(
      `SELECT member.workspace_id AS id,
         ${ssoRequiredRefusesSql('member.workspace_id', 'member.role', 'NULL')} AS refused,
         EXISTS (SELECT 1 FROM sso_connections c WHERE c.workspace_id = member.workspace_id AND c.sso_required) AS required
       FROM workspace_members member WHERE member.user_id = $1
       ORDER BY member.workspace_id = $2 DESC, member.joined_on, member.workspace_id`,
      [user.id, user.activeWorkspaceId],
    );
    const chosen = rows.find((row) => !row.refused);
    if (!chosen) {
      if (rows.length === 0)
        throw new ProblemException('forbidden', 'The user is not a member of any workspace.');
      throw new ProblemException(
        'sso-required',
        "This workspace requires single sign-on: sign in through your company's identity provider.",
      );
    }
    if (chosen.id !== user.activeWorkspaceId) {
      await this.users.update({ id: user.id }, { activeWorkspaceId: chosen.id });
      user.activeWorkspaceId = chosen.id;
    }
    const workspace = await this.workspaces.findOneByOrFail({ id: chosen.id });
    return { workspace, breakGlass: chosen.required };
  }

  /**
   * A failed sign-in of a known user is an audit event of the user's workspace (`auth.sign_in_failed`, the
   * user as its target). An unknown email belongs to no workspace: it is only logged (the request id and
   * client address, never the email) and counted (stt_password_verifications_total). The throttle bounds how
   * many either can be (docs/decisions.md, "Audit log").
   */
  private async recordFailedSignIn(user: User | null): Promise<void> {
    const workspaceId = user?.activeWorkspaceId;
    if (!user || !workspaceId) {
      this.logger.log('Sign-in refused: no account with a workspace has this email');
      return;
    }
    await this.refreshTokens.manager.transaction((tx) =>
      this.audit.record(tx, {
        actor: anonymousActor('password'),
        workspaceId,
        action: 'auth.sign_in_failed',
        target: { type: 'user', id: user.id },
      }),
    );
  }

  /**
   * Self sign-up, counted per client IP and per email before anything else. An address that is already
   * registered is refused (422): without an email round trip, a sign-up that signs in at once cannot answer
   * alike for both (docs/decisions.md, "Sign-up").
   */
  async signup(
    request: { email: string; password: string; workspaceName: string },
    clientIp: string,
  ): Promise<IssuedSession & { deviceToken: string }> {
    if (!this.config.ALLOW_SIGNUP) {
      throw new ProblemException('not-found', 'Self sign-up is not enabled on this service.');
    }
    const problem = passwordProblem(request.password);
    if (problem) throw ProblemException.field('password', problem);
    const email = normaliseEmail(request.email);
    await this.throttle.admitSignUp(email, clientIp);
    if (await this.users.existsBy({ email })) throw emailTaken();
    const passwordHash = await hashPassword(request.password);
    const created = await this.provisioning
      .createWithoutApiKey({ name: request.workspaceName.trim(), email, passwordHash })
      .catch((error: unknown) => {
        // Two sign-ups racing with one email: the unique index decides, the loser gets the same 422.
        throw (error as { code?: unknown }).code === UNIQUE_VIOLATION ? emailTaken() : error;
      });
    const user = await this.users.findOneByOrFail({ id: created.userId });
    const issued = await this.issue(user, randomUUID(), null, 'signup', {
      workspace: await this.workspaceOf(user),
      breakGlass: false,
    });
    if (!issued) throw new ProblemException('invalid-credentials', 'The account was removed; sign up again.');
    return { ...issued, deviceToken: this.devices.issue(email) };
  }

  /**
   * Accepts an invitation (the token shown to the inviter): a user with the invited email signs in with their
   * password (throttled and audited like any sign-in), anyone else signs up with a new password (the
   * invitation stands for sign-up, so ALLOW_SIGNUP does not apply). Either way the user joins with the
   * invited role, the workspace becomes their active one, and the answer is a new sign-in.
   */
  async acceptInvitation(
    request: { token: string; password: string; name?: string },
    client: SignInClient,
  ): Promise<IssuedSession & { deviceToken: string }> {
    const invitation = await this.members.openInvitation(request.token);
    const existing = await this.users.existsBy({ email: invitation.email });
    const verified = existing ? await this.verifyPassword(invitation.email, request.password, client) : null;
    if (!verified) {
      const problem = passwordProblem(request.password);
      if (problem) throw ProblemException.field('password', problem);
      await this.throttle.admitSignUp(invitation.email, client.ip);
    }
    const passwordHash = verified ? null : await hashPassword(request.password);
    const user = await this.members
      .accept(request.token, async (tx, email) => {
        if (verified) return verified;
        const repository = tx.getRepository(User);
        return repository.save(
          repository.create({
            email,
            name: request.name?.trim() ?? null,
            preferredLanguage: 'en',
            activeWorkspaceId: null,
            passwordHash,
          }),
        );
      })
      .catch((error: unknown) => {
        throw (error as { code?: unknown }).code === UNIQUE_VIOLATION ? emailTaken() : error;
      });
    return this.openSession(user, 'invitation');
  }

  /**
   * Rotates the refresh token. A token that was already rotated is being replayed (copied): the whole
   * family is revoked, so the thief and the owner both have to sign in again. Within
   * REFRESH_REUSE_GRACE_SECONDS of its rotation it is a race instead (tabs refreshing at once with the same
   * cookie): it gets the successor that rotation issued, never a token of its own, so a sign-in is one chain
   * of tokens and a copy used after the grace is still seen as a replay.
   */
  async refresh(token: string | null): Promise<IssuedSession> {
    const current = token
      ? await this.refreshTokens.findOne({ where: { tokenHash: hashRefreshToken(token) } })
      : null;
    if (!token || !current) throw invalidRefreshToken('No valid refresh token was sent; sign in again.');
    if (current.expiresOn.getTime() <= Date.now()) {
      throw invalidRefreshToken('The session has expired; sign in again.');
    }
    const successor = this.successorOf(token);
    const rotated = current.rotatedOn ?? (await this.claimRotation(current, successor));
    if (current.revokedOn || rotated === 'revoked') {
      throw invalidRefreshToken('The session has ended; sign in again.');
    }
    if (rotated !== 'claimed') {
      if (!this.withinReuseGrace(rotated)) {
        await this.revokeFamily(current, 'auth.refresh_token_reused');
        throw invalidRefreshToken('The refresh token was already used; the session was ended for safety.');
      }
      // Absent when the rotation was made under another JWT_SECRET (or before successors were derived).
      const issued = await this.refreshTokens.existsBy({
        tokenHash: hashRefreshToken(successor),
        familyId: current.familyId,
        revokedOn: IsNull(),
      });
      if (!issued) throw invalidRefreshToken('The session has ended; sign in again.');
    }
    // The provider of a sign-in made through SSO is asked once per rotation, by the refresh that made it.
    if (rotated === 'claimed' && (await this.confirmAtProvider(current, successor)) === 'ended') {
      await this.revokeFamily(current, 'sso.sign_in_failed');
      throw invalidRefreshToken('The identity provider no longer vouches for this sign-in; sign in again.');
    }
    const user = await this.users.findOneBy({ id: current.userId });
    if (!user) throw invalidRefreshToken('The user of this session no longer exists.');
    return this.session(user, await this.workspaceOf(user, current.familyId), current.familyId, successor);
  }

  /**
   * The provider's word on the sign-in of `token`, just rotated to `successor`. A provider that cannot be asked
   * (a 503) leaves the sign-in as it was: the rotation is undone, so the same token may be presented again later
   * without counting as a replay, and a second refresh meanwhile cannot take the successor unasked.
   */
  private async confirmAtProvider(token: RefreshToken, successor: string): Promise<'live' | 'ended'> {
    try {
      return await this.sso.confirmAtProvider(token.familyId);
    } catch (error) {
      await this.refreshTokens.manager.transaction(async (manager) => {
        if (!(await lockUserShared(manager, token.userId))) return;
        const tokens = manager.getRepository(RefreshToken);
        await tokens.delete({ tokenHash: hashRefreshToken(successor), familyId: token.familyId });
        await tokens.update({ id: token.id, revokedOn: IsNull() }, { rotatedOn: null });
      });
      throw error;
    }
  }

  /**
   * The one token that replaces `token` when it is rotated: derived, not stored, so a refresh in the grace can
   * hand it out again while the database keeps hashes only. Without the server secret a copied token tells
   * nothing about its successor.
   */
  private successorOf(token: string): string {
    return createHmac('sha256', this.successorKey).update(token, 'utf8').digest('base64url');
  }

  /**
   * Marks the token rotated and stores its successor, in one transaction and once: 'claimed' for the one
   * refresh that did, otherwise what another refresh or a sign-out did to it meanwhile (when it was rotated,
   * or 'revoked'). A refresh racing the claim waits on the row, so it sees the successor once it sees the
   * rotation. It holds the user's row shared (sign-in-locks.ts): a sign-out, a replay's revocation or a new
   * password either waits for the successor and revokes it too, or ends the family before the claim.
   */
  private claimRotation(token: RefreshToken, successor: string): Promise<'claimed' | 'revoked' | Date> {
    return this.refreshTokens.manager.transaction(async (manager) => {
      if (!(await lockUserShared(manager, token.userId))) return 'revoked';
      const tokens = manager.getRepository(RefreshToken);
      const claimed = await tokens.update(
        { id: token.id, rotatedOn: IsNull(), revokedOn: IsNull() },
        { rotatedOn: new Date() },
      );
      if ((claimed.affected ?? 0) > 0) {
        await tokens.insert(this.tokenRow(token.userId, token.familyId, successor));
        return 'claimed';
      }
      const now = await tokens.findOneBy({ id: token.id });
      return !now || now.revokedOn ? 'revoked' : (now.rotatedOn ?? 'revoked');
    });
  }

  private withinReuseGrace(rotatedOn: Date): boolean {
    return Date.now() - rotatedOn.getTime() < this.config.REFRESH_REUSE_GRACE_SECONDS * 1000;
  }

  /**
   * Ends the sign-in the token belongs to (its whole family); an unknown or missing token is no error. A
   * sign-in that this ends is an audit event (`auth.sign_out`) in the revocation's transaction.
   */
  async logout(token: string | null): Promise<void> {
    if (!token) return;
    const current = await this.refreshTokens.findOne({ where: { tokenHash: hashRefreshToken(token) } });
    if (current) await this.revokeFamily(current, 'auth.sign_out');
  }

  /**
   * Ends the sign-in: its refresh tokens (revokedOn), and with them its access tokens, whose `sid` the JWT
   * strategy checks on every request, and the client secrets it minted, checked when redeemed. Under the
   * user's row held exclusively (sign-in-locks.ts), so a rotation in flight has either inserted its successor
   * (revoked here, the UPDATE's snapshot being taken after the lock) or will find its token revoked. A sign-in
   * this ends is the audit event `action` in the same transaction; one that had ended already writes none.
   */
  private async revokeFamily(
    token: Pick<RefreshToken, 'userId' | 'familyId'>,
    action: SessionEndAction,
  ): Promise<void> {
    await this.refreshTokens.manager.transaction(async (manager) => {
      await lockUserExclusive(manager, token.userId);
      const ended = await manager
        .getRepository(RefreshToken)
        .update({ familyId: token.familyId, revokedOn: IsNull() }, { revokedOn: new Date() });
      if ((ended.affected ?? 0) > 0) await this.recordSessionEnd(manager, token, action);
    });
  }

  /**
   * The audit event of a sign-in that ended: a sign-out (by the user, who proved it with the refresh token) or
   * a replayed refresh token (by whoever holds the copy: nobody proven). Of the user's active workspace; a
   * user with none has no audit log to write to.
   */
  private async recordSessionEnd(
    tx: EntityManager,
    token: Pick<RefreshToken, 'userId' | 'familyId'>,
    action: SessionEndAction,
  ): Promise<void> {
    const user = await tx.getRepository(User).findOneBy({ id: token.userId });
    const viaSso = await tx.getRepository(SsoSignIn).findOneBy({ familyId: token.familyId });
    const workspaceId = viaSso?.workspaceId ?? user?.activeWorkspaceId;
    if (!user || !workspaceId) return;
    await this.audit.record(tx, {
      actor:
        action === 'auth.sign_out' ? userActor(user.id, 'refresh_token') : anonymousActor('refresh_token'),
      workspaceId,
      action,
      target: { type: 'session', id: token.familyId },
      details:
        action === 'auth.sign_out'
          ? null
          : action === 'sso.sign_in_failed'
            ? { userId: user.id, reason: 'provider-refused-refresh' }
            : { userId: user.id },
    });
  }

  /**
   * A new sign-in: a random refresh token of a new family, and an access token; null when the user was deleted
   * or, given `checkedHash` (the hash a password sign-in checked), their password changed since. The token is
   * inserted under the user's row held shared, so a new password set at the same time either sees this
   * sign-in and ends it, or is seen here and refuses it. The token and the audit event `auth.sign_in` commit
   * together.
   */
  private async issue(
    user: User,
    familyId: string,
    checkedHash: string | null,
    method: 'password' | 'signup' | 'invitation' | 'sso',
    acting: { workspace: Workspace; breakGlass: boolean },
    viaSso?: SsoPerson,
  ): Promise<IssuedSession | null> {
    const { workspace, breakGlass } = acting;
    const refreshToken = randomBytes(32).toString('base64url');
    const inserted = await this.refreshTokens.manager.transaction(async (manager: EntityManager) => {
      // An SSO sign-in holds its setting first (the order SsoService.remove takes them in): a removal either
      // waits and ends this sign-in too, or has removed the setting and this sign-in is not made.
      if (viaSso && !(await this.sso.holdSetting(manager, viaSso.workspaceId))) return false;
      const locked = await lockUserShared(manager, user.id);
      if (!locked || (checkedHash !== null && locked.passwordHash !== checkedHash)) return false;
      await manager.getRepository(RefreshToken).insert(this.tokenRow(user.id, familyId, refreshToken));
      if (viaSso) await manager.getRepository(SsoSignIn).insert(this.sso.signInRow(familyId, viaSso));
      await this.audit.record(manager, {
        actor: userActor(user.id, viaSso ? 'sso' : 'password'),
        workspaceId: workspace.id,
        action: viaSso ? 'sso.sign_in' : breakGlass ? 'auth.break_glass_sign_in' : 'auth.sign_in',
        target: { type: 'session', id: familyId },
        details: { method },
      });
      return true;
    });
    return inserted ? this.session(user, workspace, familyId, refreshToken) : null;
  }

  /** The workspace a sign-in acts in: its SSO workspace, else the user's active one. */
  private async workspaceOf(user: User, familyId?: string): Promise<Workspace> {
    const viaSso = familyId ? await this.refreshTokens.manager.findOneBy(SsoSignIn, { familyId }) : null;
    const workspaceId = viaSso?.workspaceId ?? user.activeWorkspaceId;
    const workspace = workspaceId ? await this.workspaces.findOneBy({ id: workspaceId }) : null;
    if (!workspace) throw new ProblemException('forbidden', 'The user is not a member of any workspace.');
    return workspace;
  }

  private tokenRow(userId: string, familyId: string, refreshToken: string): Partial<RefreshToken> {
    return {
      userId,
      familyId,
      tokenHash: hashRefreshToken(refreshToken),
      expiresOn: new Date(Date.now() + this.config.REFRESH_TOKEN_TTL_SECONDS * 1000),
      rotatedOn: null,
      revokedOn: null,
    };
  }

  /** The answer for a refresh token of the family: a new access token bound to the sign-in (`sid`). */
  private session(user: User, workspace: Workspace, familyId: string, refreshToken: string): IssuedSession {
    const expiresIn = this.config.ACCESS_TOKEN_TTL_SECONDS;
    return {
      refreshToken,
      view: {
        accessToken: this.tokens.issue(user.id, expiresIn, familyId).token,
        tokenType: 'Bearer',
        expiresIn,
        user: { id: user.id, email: user.email },
        workspace: { id: workspace.id, name: workspace.name },
      },
    };
  }
}

type SessionEndAction = 'auth.sign_out' | 'auth.refresh_token_reused' | 'sso.sign_in_failed';

function emailTaken(): ProblemException {
  return ProblemException.field('email', 'An account with this email already exists; sign in instead.');
}

function invalidRefreshToken(detail: string): ProblemException {
  return new ProblemException('invalid-refresh-token', detail);
}
