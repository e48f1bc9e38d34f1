import { Injectable } from '@nestjs/common';
import { sign } from 'jsonwebtoken';
import { AuthConfig } from './auth.config';

/**
 * Issues the HS256 session tokens front ends use (claims: `sub` = user id, `iat`, `exp`, and for a dashboard
 * sign-in `sid` = its refresh-token family, so that signing out or a detected replay ends the token at once).
 */
@Injectable()
export class TokenService {
  constructor(private readonly config: AuthConfig) {}

  issue(userId: string, ttlSeconds = 3600, sessionId?: string): { token: string; expiresAt: string } {
    // The strategy would refuse the token on every call: say so at issue time instead.
    if (ttlSeconds > this.config.JWT_MAX_LIFETIME_SECONDS) {
      throw new RangeError(
        `A session token lives at most JWT_MAX_LIFETIME_SECONDS=${this.config.JWT_MAX_LIFETIME_SECONDS} s.`,
      );
    }
    const token = sign(sessionId === undefined ? {} : { sid: sessionId }, this.config.JWT_SECRET, {
      algorithm: 'HS256',
      subject: userId,
      expiresIn: ttlSeconds,
    });
    return { token, expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString() };
  }
}
