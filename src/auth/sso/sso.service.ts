import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import * as oidc from 'openid-client';
import { DataSource, EntityManager } from 'typeorm';
import { User } from '../../account/user.entity';
import { AuditLog, anonymousActor, userActor } from '../../audit/audit-log.service';
import type { Principal } from '../../common/principal/principal';
import { ProblemException } from '../../common/problem/problem.exception';
import type { Schema } from '../../openapi/contract-types';
import { OutboundUrlPolicy } from '../../outbound-url/outbound-url-policy';
import { AuthConfig } from '../auth.config';
import { lockUserExclusive } from '../sign-in-locks';
import { normaliseEmail } from '../email-address';
import { SecretBox } from './secret-box';
import { SsoConnection } from './sso-connection.entity';
import { SsoIdentity } from './sso-identity.entity';
import { SsoSignIn } from './sso-sign-in.entity';
import { SsoConfig } from './sso.config';
import type { PutSsoConnectionDto } from './sso.dto';

export type SsoConnectionView = Schema<'SsoConnection'>;

/** Why a sign-in through SSO was refused: the `sso_error` of the dashboard URL it is sent back to. */
export type SsoFailure =
  | 'state' // no login of this browser is waiting for this answer (a wrong, replayed or expired state)
  | 'not-configured' // the workspace has no single sign-on (any more)
  | 'provider' // the provider refused (the user cancelled, a replayed code) or could not be reached
  | 'token' // the ID token did not verify: signature, issuer, audience, nonce, expiry
  | 'email-unverified' // the provider does not vouch for the email
  | 'email-domain'; // the email is outside the workspace's allowed domains

export class SsoSignInRefused extends Error {
  constructor(
    readonly reason: SsoFailure,
    message: string,
  ) {
    super(message);
  }
}

/** What a browser's login carries from start to callback, sealed in the `stt_sso` cookie. */
interface LoginState {
  workspaceId: string;
  state: string;
  nonce: string;
  verifier: string;
  expiresAt: number;
}

/** A provider that cannot be reached: a 503 whose retry the client may try soon. */
const RETRY_AFTER = { 'Retry-After': '5' };
/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** How long a browser may take at the provider between start and callback. */
export const LOGIN_STATE_TTL_SECONDS = 600;
const PROVIDER_TIMEOUT_SECONDS = 10;
const CALLBACK_PATH = '/v1/auth/sso/callback';
/** Discovered provider configurations kept (per workspace, until its setting changes or this long). */
const DISCOVERY_CACHE_MS = 5 * 60_000;
const DISCOVERY_CACHE_SIZE = 500;

/** The person a provider vouched for, and where they now act. */
export interface SsoPerson {
  user: User;
  workspaceId: string;
  /** Sealed; null when the provider issued no refresh token. */
  providerRefreshToken: string | null;
}

/**
 * Single sign-on with a workspace's own OpenID provider (authorization code flow with PKCE, state and nonce,
 * the ID token verified by openid-client against the issuer's published keys), just-in-time membership, and the
 * provider's word at every refresh of a sign-in it made. The sign-in itself is SessionService's.
 */
@Injectable()
export class SsoService {
  private readonly logger = new Logger(SsoService.name);
  private readonly clientSecrets: SecretBox;
  private readonly refreshTokens: SecretBox;
  private readonly loginStates: SecretBox;
  private readonly issuerPolicy: OutboundUrlPolicy;
  private readonly discovered = new Map<string, { config: oidc.Configuration; at: number }>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: SsoConfig,
    auth: AuthConfig,
    private readonly audit: AuditLog,
  ) {
    this.clientSecrets = new SecretBox(auth.JWT_SECRET, 'sso client secret');
    this.refreshTokens = new SecretBox(auth.JWT_SECRET, 'sso provider refresh token');
    this.loginStates = new SecretBox(auth.JWT_SECRET, 'sso login state');
    this.issuerPolicy = new OutboundUrlPolicy({
      allowPrivateTargets: config.SSO_ALLOW_PRIVATE_ISSUERS,
      httpsReason: 'set SSO_ALLOW_PRIVATE_ISSUERS=true for an identity provider on a private network',
    });
  }

  // ---- settings ------------------------------------------------------------------------------------------

  /** The setting, or null while the workspace has none. */
  async get(workspaceId: string): Promise<SsoConnectionView | null> {
    const connection = await this.dataSource.getRepository(SsoConnection).findOneBy({ workspaceId });
    return connection ? this.view(connection) : null;
  }

  /**
   * Replaces the setting, after the issuer's discovery document was read with it (a wrong issuer is refused
   * here, not at the first sign-in). Audited with the settings before and after (never the secret).
   */
  async put(principal: Principal, body: PutSsoConnectionDto): Promise<SsoConnectionView> {
    const callback = this.callbackUrl();
    const issuer = body.issuer.replace(/\/+$/, '');
    const verdict = await this.issuerPolicy.check(issuer);
    if (!verdict.allowed) throw ProblemException.field('issuer', `issuer ${verdict.reason}`);
    const repository = this.dataSource.getRepository(SsoConnection);
    const existing = await repository.findOneBy({ workspaceId: principal.workspaceId });
    const clientSecret =
      body.clientSecret ?? (existing ? this.clientSecrets.open(existing.clientSecretEncrypted) : null);
    if (clientSecret === null) {
      throw ProblemException.field('clientSecret', 'clientSecret is required (no secret is stored)');
    }
    try {
      await this.discover(issuer, body.clientId, clientSecret);
    } catch (error) {
      throw ProblemException.field('issuer', `issuer discovery failed: ${describe(error)}`);
    }
    const next: Partial<SsoConnection> = {
      workspaceId: principal.workspaceId,
      issuer,
      clientId: body.clientId,
      clientSecretEncrypted: this.clientSecrets.seal(clientSecret),
      allowedDomains: [...new Set(body.allowedDomains.map((domain) => domain.toLowerCase()))],
      defaultRole: body.defaultRole ?? 'member',
      ssoRequired: body.ssoRequired ?? false,
    };
    await this.dataSource.transaction(async (tx) => {
      await tx.getRepository(SsoConnection).upsert(next, ['workspaceId']);
      await this.audit.record(tx, {
        principal,
        action: 'sso.settings_changed',
        target: { type: 'sso_connection', id: principal.workspaceId },
        before: existing ? settingsSnapshot(existing) : null,
        after: settingsSnapshot(next as SsoConnection),
        details: { clientSecretChanged: body.clientSecret !== undefined, callbackUrl: callback },
      });
    });
    this.discovered.delete(principal.workspaceId);
    const saved = await this.get(principal.workspaceId);
    if (!saved) throw ProblemException.notFound('The single sign-on setting');
    return saved;
  }

  /**
   * Removes the setting and ends every sign-in made through it at once (their refresh tokens revoked under
   * each user's row held exclusively, sign-in-locks.ts), in one transaction with its audit event.
   */
  async remove(principal: Principal): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      const existing = await tx.findOne(SsoConnection, {
        where: { workspaceId: principal.workspaceId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!existing) throw ProblemException.notFound('The single sign-on setting');
      const signIns = await tx.query<Array<{ user_id: string }>>(
        'SELECT DISTINCT user_id FROM sso_sign_ins WHERE workspace_id = $1 ORDER BY user_id',
        [principal.workspaceId],
      );
      for (const { user_id } of signIns) await lockUserExclusive(tx, user_id);
      await tx.query(
        `UPDATE refresh_tokens SET revoked_on = now() WHERE revoked_on IS NULL
           AND family_id IN (SELECT family_id FROM sso_sign_ins WHERE workspace_id = $1)`,
        [principal.workspaceId],
      );
      await tx.delete(SsoConnection, { workspaceId: principal.workspaceId });
      await this.audit.record(tx, {
        principal,
        action: 'sso.settings_changed',
        target: { type: 'sso_connection', id: principal.workspaceId },
        before: settingsSnapshot(existing),
        after: null,
        details: { signInsEnded: signIns.length },
      });
    });
    this.discovered.delete(principal.workspaceId);
  }

  // ---- the browser's login ---------------------------------------------------------------------------------

  /** Where to send the browser (the provider's authorization endpoint), and the sealed state for its cookie. */
  async start(workspaceId: string): Promise<{ redirectTo: string; stateCookie: string }> {
    const connection = await this.dataSource.getRepository(SsoConnection).findOneBy({ workspaceId });
    if (!connection) throw ProblemException.notFound('Single sign-on for this workspace');
    const config = await this.providerOf(connection).catch((error: unknown) => {
      this.logger.warn(`SSO discovery of ${connection.issuer} failed: ${describe(error)}`);
      throw new ProblemException(
        'service-unavailable',
        'The identity provider could not be reached.',
        {},
        RETRY_AFTER,
      );
    });
    const login: LoginState = {
      workspaceId,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      expiresAt: Date.now() + LOGIN_STATE_TTL_SECONDS * 1000,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.callbackUrl(),
      scope: 'openid email profile offline_access',
      prompt: 'consent',
      code_challenge: await oidc.calculatePKCECodeChallenge(login.verifier),
      code_challenge_method: 'S256',
      state: login.state,
      nonce: login.nonce,
    });
    return { redirectTo: url.href, stateCookie: this.loginStates.seal(JSON.stringify(login)) };
  }

  /**
   * The provider's answer: the state must be this browser's (its sealed cookie: state, nonce, PKCE verifier),
   * the code is exchanged and the ID token verified by openid-client, then the verified email must be in an
   * allowed domain. The person is found by (issuer, subject), else by email (then linked), else created; a
   * user who is not a member joins with the workspace's default role. Refusals are audited where the
   * workspace is known and thrown as SsoSignInRefused.
   */
  async complete(query: string, stateCookie: string | null): Promise<SsoPerson> {
    const login = this.openLoginState(stateCookie);
    const received = new URLSearchParams(query).get('state');
    if (!login || received !== login.state) {
      throw new SsoSignInRefused('state', 'No sign-in of this browser is waiting for this answer.');
    }
    const connection = await this.dataSource
      .getRepository(SsoConnection)
      .findOneBy({ workspaceId: login.workspaceId });
    if (!connection) throw new SsoSignInRefused('not-configured', 'The workspace has no single sign-on.');
    try {
      const config = await this.providerOf(connection);
      const tokens = await oidc
        .authorizationCodeGrant(config, new URL(`${this.callbackUrl()}?${query}`), {
          pkceCodeVerifier: login.verifier,
          expectedState: login.state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        })
        .catch((error: unknown) => {
          throw refusalOf(error);
        });
      const claims = tokens.claims();
      if (!claims) throw new SsoSignInRefused('token', 'The provider sent no ID token.');
      const profile =
        typeof claims.email === 'string'
          ? claims
          : await oidc.fetchUserInfo(config, tokens.access_token, claims.sub).catch((error: unknown) => {
              throw refusalOf(error);
            });
      const email = typeof profile.email === 'string' ? normaliseEmail(profile.email) : null;
      if (!email || profile.email_verified !== true) {
        throw new SsoSignInRefused('email-unverified', 'The provider does not vouch for an email address.');
      }
      const domain = email.slice(email.lastIndexOf('@') + 1);
      if (!connection.allowedDomains.includes(domain)) {
        throw new SsoSignInRefused('email-domain', `Email addresses of ${domain} may not sign in here.`);
      }
      // Two first sign-ins of one new person at once: the loser of the users' unique email finds the winner's.
      const user = await this.join(connection, claims.sub, email, profile.name).catch((error: unknown) => {
        if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
        return this.join(connection, claims.sub, email, profile.name);
      });
      return {
        user,
        workspaceId: connection.workspaceId,
        providerRefreshToken: tokens.refresh_token ? this.refreshTokens.seal(tokens.refresh_token) : null,
      };
    } catch (error) {
      const refusal = error instanceof SsoSignInRefused ? error : refusalOf(error);
      await this.dataSource.transaction((tx) =>
        this.audit.record(tx, {
          actor: anonymousActor('sso'),
          workspaceId: connection.workspaceId,
          action: 'sso.sign_in_failed',
          target: { type: 'sso_connection', id: connection.workspaceId },
          details: { reason: refusal.reason },
        }),
      );
      throw refusal;
    }
  }

  /**
   * The provider's word on a sign-in it made, at each of its refreshes: 'live' (or not an SSO sign-in), or
   * 'ended' when the provider refuses its refresh token (the account disabled or removed there, the grant
   * revoked) or the workspace's SSO is gone. A provider that cannot be reached is a 503: the sign-in is not
   * ended, and not renewed either.
   */
  async confirmAtProvider(familyId: string): Promise<'live' | 'ended'> {
    const signIn = await this.dataSource.getRepository(SsoSignIn).findOneBy({ familyId });
    if (!signIn) return 'live';
    const connection = await this.dataSource
      .getRepository(SsoConnection)
      .findOneBy({ workspaceId: signIn.workspaceId });
    if (!connection) return 'ended';
    if (!signIn.providerRefreshTokenEncrypted) return 'live';
    const refreshToken = this.refreshTokens.open(signIn.providerRefreshTokenEncrypted);
    if (!refreshToken) return 'ended';
    let config: oidc.Configuration;
    try {
      config = await this.providerOf(connection);
    } catch (error) {
      throw providerUnreachable(error);
    }
    try {
      const tokens = await oidc.refreshTokenGrant(config, refreshToken);
      if (tokens.refresh_token && tokens.refresh_token !== refreshToken) {
        await this.dataSource
          .getRepository(SsoSignIn)
          .update(
            { familyId },
            { providerRefreshTokenEncrypted: this.refreshTokens.seal(tokens.refresh_token) },
          );
      }
      return 'live';
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError) return 'ended';
      throw providerUnreachable(error);
    }
  }

  /**
   * Holds the workspace's setting (`FOR SHARE`) in a new SSO sign-in's transaction, before the user's row: the
   * order `remove` takes them in (setting, then users), so a removal and a sign-in never wait on each other in
   * opposite orders. False when the setting is gone.
   */
  async holdSetting(tx: EntityManager, workspaceId: string): Promise<boolean> {
    const rows = await tx.query<unknown[]>(
      'SELECT 1 FROM sso_connections WHERE workspace_id = $1 FOR SHARE',
      [workspaceId],
    );
    return rows.length > 0;
  }

  /** The sign-in row of a new SSO sign-in, inserted by SessionService in the sign-in's transaction. */
  signInRow(familyId: string, person: SsoPerson): Partial<SsoSignIn> {
    return {
      familyId,
      userId: person.user.id,
      workspaceId: person.workspaceId,
      providerRefreshTokenEncrypted: person.providerRefreshToken,
    };
  }

  // ---- internals -----------------------------------------------------------------------------------------

  /**
   * The user the provider vouched for, a member of the workspace, in one transaction: the identity
   * (issuer, subject) if known, else the user of the verified email (linked), else a new user without a
   * password. A user who is not a member joins with the default role (`member.joined`, via SSO).
   */
  private join(connection: SsoConnection, subject: string, email: string, name: unknown): Promise<User> {
    return this.dataSource.transaction(async (tx: EntityManager) => {
      const identities = tx.getRepository(SsoIdentity);
      const users = tx.getRepository(User);
      const identity = await identities.findOneBy({
        workspaceId: connection.workspaceId,
        issuer: connection.issuer,
        subject,
      });
      let user = identity ? await users.findOneBy({ id: identity.userId }) : null;
      if (!user) user = await users.findOneBy({ email });
      if (!user) {
        user = await users.save(
          users.create({
            email,
            name: typeof name === 'string' && name.trim() ? name.trim().slice(0, 200) : null,
            preferredLanguage: 'en',
            activeWorkspaceId: connection.workspaceId,
            passwordHash: null,
          }),
        );
      }
      if (!identity) {
        await tx.query(
          `INSERT INTO sso_identities (workspace_id, issuer, subject, user_id) VALUES ($1, $2, $3, $4)
           ON CONFLICT (workspace_id, issuer, subject) DO NOTHING`,
          [connection.workspaceId, connection.issuer, subject, user.id],
        );
      }
      const joined: unknown[] = await tx.query(
        `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING user_id`,
        [connection.workspaceId, user.id, connection.defaultRole],
      );
      if (joined.length > 0) {
        await this.audit.record(tx, {
          actor: userActor(user.id, 'sso'),
          workspaceId: connection.workspaceId,
          action: 'member.joined',
          target: { type: 'member', id: user.id },
          details: { via: 'sso', role: connection.defaultRole },
        });
      }
      if (!user.activeWorkspaceId) {
        await users.update({ id: user.id }, { activeWorkspaceId: connection.workspaceId });
        user.activeWorkspaceId = connection.workspaceId;
      }
      return user;
    });
  }

  private openLoginState(cookie: string | null): LoginState | null {
    if (!cookie) return null;
    const opened = this.loginStates.open(cookie);
    if (!opened) return null;
    try {
      const login = JSON.parse(opened) as LoginState;
      return login.expiresAt > Date.now() ? login : null;
    } catch {
      return null;
    }
  }

  private callbackUrl(): string {
    if (!this.config.PUBLIC_URL) {
      throw ProblemException.field(
        'issuer',
        'single sign-on needs the service to know its public address: set PUBLIC_URL (the callback is <PUBLIC_URL>/v1/auth/sso/callback)',
      );
    }
    return `${this.config.PUBLIC_URL}${CALLBACK_PATH}`;
  }

  /** The provider's discovered configuration, kept a few minutes per workspace and setting. */
  private async providerOf(connection: SsoConnection): Promise<oidc.Configuration> {
    const cached = this.discovered.get(connection.workspaceId);
    if (
      cached &&
      Date.now() - cached.at < DISCOVERY_CACHE_MS &&
      cached.at >= connection.updatedOn.getTime()
    ) {
      return cached.config;
    }
    const secret = this.clientSecrets.open(connection.clientSecretEncrypted);
    if (secret === null) {
      throw new Error(
        'the stored client secret cannot be read (JWT_SECRET changed?): save the setting again',
      );
    }
    const config = await this.discover(connection.issuer, connection.clientId, secret);
    if (this.discovered.size >= DISCOVERY_CACHE_SIZE) this.discovered.clear();
    this.discovered.set(connection.workspaceId, { config, at: Date.now() });
    return config;
  }

  private async discover(
    issuer: string,
    clientId: string,
    clientSecret: string,
  ): Promise<oidc.Configuration> {
    const policy = this.issuerPolicy;
    // Every request to the provider (discovery, keys, token, userinfo) goes where the issuer rules allow.
    const guardedFetch: oidc.CustomFetch = async (url, options) => {
      const verdict = await policy.check(url);
      if (!verdict.allowed) throw new Error(`${new URL(url).origin} ${verdict.reason}`);
      return fetch(url, options);
    };
    const config = await oidc.discovery(
      new URL(issuer),
      clientId,
      undefined,
      oidc.ClientSecretBasic(clientSecret),
      {
        timeout: PROVIDER_TIMEOUT_SECONDS,
        [oidc.customFetch]: guardedFetch,
        ...(this.config.SSO_ALLOW_PRIVATE_ISSUERS ? { execute: [oidc.allowInsecureRequests] } : {}),
      },
    );
    config[oidc.customFetch] = guardedFetch;
    // The ID token's signature is checked against the issuer's published keys even though it came straight
    // from the token endpoint over TLS (openid-client checks it only when asked).
    oidc.enableNonRepudiationChecks(config);
    return config;
  }

  private view(connection: SsoConnection): SsoConnectionView {
    const base = this.config.PUBLIC_URL ?? '';
    return {
      issuer: connection.issuer,
      clientId: connection.clientId,
      clientSecretSet: true,
      allowedDomains: connection.allowedDomains,
      defaultRole: connection.defaultRole,
      ssoRequired: connection.ssoRequired,
      callbackUrl: `${base}${CALLBACK_PATH}`,
      signInUrl: `${base}/v1/auth/sso/start?workspace=${connection.workspaceId}`,
      createdAt: connection.createdOn.toISOString(),
      updatedAt: connection.updatedOn.toISOString(),
    };
  }
}

/** The settings as an audit event keeps them: never the secret. */
function settingsSnapshot(connection: SsoConnection): Record<string, unknown> {
  return {
    issuer: connection.issuer,
    clientId: connection.clientId,
    allowedDomains: connection.allowedDomains,
    defaultRole: connection.defaultRole,
    ssoRequired: connection.ssoRequired,
  };
}

/** An openid-client failure as a refusal: the provider's own refusal, else a token that did not verify. */
function refusalOf(error: unknown): SsoSignInRefused {
  if (error instanceof SsoSignInRefused) return error;
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
    return new SsoSignInRefused('provider', `The identity provider refused: ${error.error}`);
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^OAUTH_(JWT|JWS|INVALID|UNSUPPORTED|RESPONSE_IS_NOT)|^ERR_JW/.test(code)) {
    return new SsoSignInRefused('token', `The ID token did not verify: ${describe(error)}`);
  }
  return new SsoSignInRefused('provider', `The identity provider could not be used: ${describe(error)}`);
}

function providerUnreachable(error: unknown): ProblemException {
  return new ProblemException(
    'service-unavailable',
    `The identity provider could not confirm this sign-in (${describe(error)}); try again.`,
    {},
    RETRY_AFTER,
  );
}

function describe(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const message = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && cause.message !== message ? `${message}: ${cause.message}` : message;
}
