import { Injectable } from '@nestjs/common';
import { sign } from 'jsonwebtoken';
import { AppConfig } from '../config/app-config';

/** Issues the HS256 session tokens front ends use (claims: `sub` = user id, `iat`, `exp`). */
@Injectable()
export class TokenService {
  constructor(private readonly config: AppConfig) {}

  issue(userId: string, ttlSeconds = 3600): { token: string; expiresAt: string } {
    const token = sign({}, this.config.JWT_SECRET, {
      algorithm: 'HS256',
      subject: userId,
      expiresIn: ttlSeconds,
    });
    return { token, expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString() };
  }
}
