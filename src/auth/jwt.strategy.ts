import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { InjectRepository } from '@nestjs/typeorm';
import { Strategy } from 'passport-jwt';
import { Repository } from 'typeorm';
import type { Request } from 'express';
import { User } from '../account/user.entity';
import { isUuid } from '../common/http/resource-id.pipe';
import { ProblemException } from '../common/problem/problem.exception';
import { AuthConfig } from './auth.config';
import { bearerCredential } from './authorization-header';
import { Principal } from '../common/principal/principal';
import { SessionCookies } from './session/session-cookies';
import { isRole, permissionsOfRole, Role } from '../common/principal/permission-table';
import { WorkspaceMember } from './members/workspace-member.entity';
import { SsoSignIn } from './sso/sso-sign-in.entity';
import { actingWorkspaceSql, ssoRequiredRefusesSql } from './sso/sso-sign-in-rules';

export const JWT_STRATEGY = 'jwt';

interface JwtClaims {
  sub?: unknown;
  exp?: unknown;
  iat?: unknown;
  sid?: unknown;
}

/** How far ahead of this machine's clock a token's `iat` may be (the issuer's clock may run a little fast). */
export const ISSUED_AT_SKEW_SECONDS = 60;

/**
 * The workspace the sign-in acts in: its SSO workspace, else the user's active one (sso-sign-in-rules.ts), over
 * the `sso` join of userAndSession.
 */
const ACTING_WORKSPACE = actingWorkspaceSql('sso', '"user"."active_workspace_id"');

/** Whether the acting workspace requires SSO and this sign-in did not come through it (owners excepted). */
const SSO_REFUSED = ssoRequiredRefusesSql(ACTING_WORKSPACE, 'member.role', ':sessionId');

/**
 * A dashboard sign-in (`sid`: its refresh-token family) is live while a token of the family is not revoked:
 * sign-out, a detected replay and a new password revoke the whole family at once (SessionService,
 * UserPasswordService). Asked in the same statement as the user, so it adds no round trip.
 */
const SESSION_LIVE = `EXISTS (SELECT 1 FROM refresh_tokens token WHERE token.family_id = :sessionId
  AND token.user_id = "user"."id" AND token.revoked_on IS NULL)`;

/** HS256 only: `alg: none` and every other algorithm fail signature verification. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  private readonly maxLifetimeSeconds: number;

  constructor(
    config: AuthConfig,
    @InjectRepository(User) private readonly users: Repository<User>,
    cookies: SessionCookies,
  ) {
    super({
      // The header when present (the resolver sends a request here only for a JWT-looking header or for
      // none at all), else the session cookie on a GET or HEAD.
      jwtFromRequest: (request: Request) =>
        request.headers.authorization === undefined
          ? cookies.sessionCredential(request)
          : bearerCredential(request.headers.authorization),
      secretOrKey: config.JWT_SECRET,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
    this.maxLifetimeSeconds = config.JWT_MAX_LIFETIME_SECONDS;
  }

  async validate(claims: JwtClaims): Promise<Principal> {
    if (typeof claims.exp !== 'number') {
      throw new ProblemException('invalid-token', 'The token has no expiry (`exp` claim).');
    }
    // A session token is short-lived by rule: one signed for years (a leaked secret, a careless script) is
    // refused even before it expires, and without `iat` its lifetime cannot be known.
    if (typeof claims.iat !== 'number') {
      throw new ProblemException('invalid-token', 'The token has no issue time (`iat` claim).');
    }
    if (claims.exp - claims.iat > this.maxLifetimeSeconds) {
      throw new ProblemException(
        'invalid-token',
        `The token's lifetime (exp − iat) exceeds the maximum of ${this.maxLifetimeSeconds} s.`,
      );
    }
    // Otherwise a token "issued" in a year and expiring ten minutes later is valid for a year.
    if (claims.iat > Date.now() / 1000 + ISSUED_AT_SKEW_SECONDS) {
      throw new ProblemException('invalid-token', 'The token was issued in the future (`iat` claim).');
    }
    if (typeof claims.sub !== 'string' || !isUuid(claims.sub)) {
      throw new ProblemException('invalid-token', 'The token subject (`sub`) is not a user id.');
    }
    if (claims.sid !== undefined && (typeof claims.sid !== 'string' || !isUuid(claims.sid))) {
      throw new ProblemException('invalid-token', 'The token session (`sid`) is not a session id.');
    }
    const { user, sessionLive, role, workspaceId, ssoRefused, viaSso } = await this.userAndSession(
      claims.sub,
      claims.sid,
    );
    if (!user)
      throw new ProblemException('user-not-found', 'The user this token was issued for no longer exists.');
    if (!sessionLive) {
      throw new ProblemException(
        'invalid-token',
        'The sign-in of this token has ended (signed out, or its refresh token was replayed); sign in again.',
      );
    }
    // Membership is read on every request: a member removed (or whose role changed) is refused (or held to
    // the new role) from the next request on, whatever tokens they hold.
    if (!workspaceId || role === null) {
      throw new ProblemException('forbidden', 'The user is not a member of any workspace.');
    }
    if (ssoRefused) {
      throw new ProblemException(
        'sso-required',
        "This workspace requires single sign-on: sign in through your company's identity provider.",
      );
    }
    return {
      workspaceId,
      ...(viaSso ? { viaSso: true } : {}),
      userId: user.id,
      credential: 'jwt',
      rateLimitKey: `user:${user.id}`,
      ...(typeof claims.sid === 'string' ? { signInId: claims.sid } : {}),
      role,
      permissions: permissionsOfRole(role),
    };
  }

  /**
   * The user, the workspace the sign-in acts in and the user's role there, whether SSO refuses it there,
   * whether the sign-in is live (always, for a token
   * of no sign-in: `token:issue`'s), in one statement.
   */
  private async userAndSession(
    userId: string,
    sessionId: string | undefined,
  ): Promise<{
    user: User | null;
    sessionLive: boolean;
    role: Role | null;
    workspaceId: string | null;
    ssoRefused: boolean;
    viaSso: boolean;
  }> {
    // Each table once: the sign-in's SSO row (none for a token of no sign-in), then the membership in the
    // workspace it acts in (none: no longer a member).
    const query = this.users
      .createQueryBuilder('user')
      .leftJoin(SsoSignIn, 'sso', 'sso.family_id = :sessionId AND sso.user_id = "user"."id"')
      .leftJoin(
        WorkspaceMember,
        'member',
        `member.user_id = "user"."id" AND member.workspace_id = ${ACTING_WORKSPACE}`,
      )
      .where('user.id = :userId', { userId })
      .addSelect('member.role', 'member_role')
      .addSelect(ACTING_WORKSPACE, 'acting_workspace')
      .addSelect(SSO_REFUSED, 'sso_refused')
      .addSelect('sso.family_id IS NOT NULL', 'via_sso')
      .addSelect(sessionId === undefined ? 'true' : SESSION_LIVE, 'session_live')
      .setParameter('sessionId', sessionId ?? null);
    const { entities, raw } = await query.getRawAndEntities<{
      session_live: boolean;
      member_role: unknown;
      acting_workspace: string | null;
      sso_refused: boolean;
      via_sso: boolean;
    }>();
    const memberRole = raw[0]?.member_role;
    return {
      user: entities[0] ?? null,
      sessionLive: raw[0]?.session_live === true,
      role: isRole(memberRole) ? memberRole : null,
      workspaceId: raw[0]?.acting_workspace ?? null,
      ssoRefused: raw[0]?.sso_refused === true,
      viaSso: raw[0]?.via_sso === true,
    };
  }
}
