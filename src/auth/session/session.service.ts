import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import { User } from '../../account/user.entity';
import { Workspace } from '../../account/workspace.entity';
import { WorkspaceProvisioningService } from '../../account/workspace-provisioning.service';
import { ProblemException } from '../../common/problem/problem.exception';
import { AppConfig } from '../../config/app-config';
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
import { normaliseEmail } from './user-password.service';

export interface SessionView {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  user: { id: string; email: string };
  workspace: { id: string; name: string };
}

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

/** Dashboard sign-in: passwords, access JWTs and rotating refresh tokens (docs/decisions.md, issue 13). */
@Injectable()
export class SessionService implements OnModuleInit {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>,
    @InjectRepository(RefreshToken) private readonly refreshTokens: Repository<RefreshToken>,
    private readonly tokens: TokenService,
    private readonly throttle: LoginThrottleService,
    private readonly devices: KnownDeviceService,
    private readonly provisioning: WorkspaceProvisioningService,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

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
      throw new ProblemException('invalid-credentials', INVALID_CREDENTIALS);
    }
    await this.throttle.signInSucceeded(attempt);
    return { ...(await this.issue(user, randomUUID())), deviceToken: this.devices.issue(email) };
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
    return { ...(await this.issue(user, randomUUID())), deviceToken: this.devices.issue(email) };
  }

  /**
   * Rotates the refresh token. A token that was already rotated is being replayed (copied): the whole
   * family is revoked, so the thief and the owner both have to sign in again. Within
   * REFRESH_REUSE_GRACE_SECONDS of its rotation it is a race instead (tabs refreshing at once with the same
   * cookie), and it gets a new token of the same family too.
   */
  async refresh(token: string | null): Promise<IssuedSession> {
    const current = token
      ? await this.refreshTokens.findOne({ where: { tokenHash: hashRefreshToken(token) } })
      : null;
    if (!current) throw invalidRefreshToken('No valid refresh token was sent; sign in again.');
    if (current.expiresOn.getTime() <= Date.now()) {
      throw invalidRefreshToken('The session has expired; sign in again.');
    }
    const rotated = current.rotatedOn ?? (await this.claimRotation(current));
    if (current.revokedOn || rotated === 'revoked') {
      throw invalidRefreshToken('The session has ended; sign in again.');
    }
    if (rotated !== 'claimed' && !this.withinReuseGrace(rotated)) {
      await this.revokeFamily(current.familyId);
      throw invalidRefreshToken('The refresh token was already used; the session was ended for safety.');
    }
    const user = await this.users.findOneBy({ id: current.userId });
    if (!user) throw invalidRefreshToken('The user of this session no longer exists.');
    return this.issue(user, current.familyId);
  }

  /**
   * Marks the token rotated, once: 'claimed' for the one refresh that did, otherwise what another refresh or a
   * sign-out did to it meanwhile (when it was rotated, or 'revoked').
   */
  private async claimRotation(token: RefreshToken): Promise<'claimed' | 'revoked' | Date> {
    const claimed = await this.refreshTokens.update(
      { id: token.id, rotatedOn: IsNull(), revokedOn: IsNull() },
      { rotatedOn: new Date() },
    );
    if ((claimed.affected ?? 0) > 0) return 'claimed';
    const now = await this.refreshTokens.findOneByOrFail({ id: token.id });
    return now.revokedOn ? 'revoked' : (now.rotatedOn ?? 'revoked');
  }

  private withinReuseGrace(rotatedOn: Date): boolean {
    return Date.now() - rotatedOn.getTime() < this.config.REFRESH_REUSE_GRACE_SECONDS * 1000;
  }

  /** Ends the sign-in the token belongs to (its whole family); an unknown or missing token is no error. */
  async logout(token: string | null): Promise<void> {
    if (!token) return;
    const current = await this.refreshTokens.findOne({ where: { tokenHash: hashRefreshToken(token) } });
    if (current) await this.revokeFamily(current.familyId);
  }

  private async revokeFamily(familyId: string): Promise<void> {
    await this.refreshTokens.update({ familyId, revokedOn: IsNull() }, { revokedOn: new Date() });
  }

  private async issue(user: User, familyId: string): Promise<IssuedSession> {
    const workspace = user.activeWorkspaceId
      ? await this.workspaces.findOneBy({ id: user.activeWorkspaceId })
      : null;
    if (!workspace) throw new ProblemException('forbidden', 'The user is not a member of any workspace.');
    const refreshToken = randomBytes(32).toString('base64url');
    await this.refreshTokens.insert({
      userId: user.id,
      familyId,
      tokenHash: hashRefreshToken(refreshToken),
      expiresOn: new Date(Date.now() + this.config.REFRESH_TOKEN_TTL_SECONDS * 1000),
      rotatedOn: null,
      revokedOn: null,
    });
    const expiresIn = this.config.ACCESS_TOKEN_TTL_SECONDS;
    return {
      refreshToken,
      view: {
        accessToken: this.tokens.issue(user.id, expiresIn).token,
        tokenType: 'Bearer',
        expiresIn,
        user: { id: user.id, email: user.email },
        workspace: { id: workspace.id, name: workspace.name },
      },
    };
  }
}

function emailTaken(): ProblemException {
  return ProblemException.field('email', 'An account with this email already exists; sign in instead.');
}

function invalidRefreshToken(detail: string): ProblemException {
  return new ProblemException('invalid-refresh-token', detail);
}
