import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { InjectRepository } from '@nestjs/typeorm';
import { Strategy } from 'passport-jwt';
import { Repository } from 'typeorm';
import type { Request } from 'express';
import { User } from '../account/user.entity';
import { isUuid } from '../common/http/resource-id.pipe';
import { ProblemException } from '../common/problem/problem.exception';
import { AppConfig } from '../config/app-config';
import { bearerCredential } from './authorization-header';
import { Principal } from './principal';
import { sessionCookieCredential } from './session/session-cookies';

export const JWT_STRATEGY = 'jwt';

interface JwtClaims {
  sub?: unknown;
  exp?: unknown;
  iat?: unknown;
}

/** HS256 only: `alg: none` and every other algorithm fail signature verification. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  private readonly maxLifetimeSeconds: number;

  constructor(
    config: AppConfig,
    @InjectRepository(User) private readonly users: Repository<User>,
  ) {
    super({
      // The header when present (the resolver sends a request here only for a JWT-looking header or for
      // none at all), else the session cookie on a GET or HEAD.
      jwtFromRequest: (request: Request) =>
        request.headers.authorization === undefined
          ? sessionCookieCredential(request)
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
    if (typeof claims.sub !== 'string' || !isUuid(claims.sub)) {
      throw new ProblemException('invalid-token', 'The token subject (`sub`) is not a user id.');
    }
    const user = await this.users.findOne({ where: { id: claims.sub } });
    if (!user)
      throw new ProblemException('user-not-found', 'The user this token was issued for no longer exists.');
    if (!user.activeWorkspaceId) {
      throw new ProblemException('forbidden', 'The user is not a member of any workspace.');
    }
    return {
      workspaceId: user.activeWorkspaceId,
      userId: user.id,
      credential: 'jwt',
      rateLimitKey: `user:${user.id}`,
    };
  }
}
