import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { CredentialResolver } from '../../auth/credential-resolver.service';
import { RequestWithAuth } from '../../auth/principal';
import { ProblemException } from '../problem/problem.exception';
import { RateLimitService } from './rate-limit.service';

/**
 * Runs for every request, matched route or not: resolves the caller, then charges the rate-limit bucket
 * (per API key or user when authenticated, per client IP otherwise) and sets the x-ratelimit-* headers.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  constructor(
    private readonly credentials: CredentialResolver,
    private readonly rateLimits: RateLimitService,
  ) {}

  async use(request: RequestWithAuth, response: Response, next: NextFunction): Promise<void> {
    request.auth = await this.credentials.resolve(request, response);
    const principal = request.auth.kind === 'authenticated' ? request.auth.principal : null;
    const decision = await this.rateLimits.consume(
      principal
        ? { key: principal.rateLimitKey, authenticated: true }
        : { key: `ip:${request.ip ?? 'unknown'}`, authenticated: false },
    );
    response.setHeader('x-ratelimit-limit', String(decision.limit));
    response.setHeader('x-ratelimit-remaining', String(decision.remaining));
    response.setHeader('x-ratelimit-reset', String(decision.resetSeconds));
    if (decision.retryAfterSeconds !== null) {
      throw new ProblemException(
        'rate-limit',
        `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSeconds} s.`,
        {},
        { 'Retry-After': String(decision.retryAfterSeconds) },
      );
    }
    next();
  }
}
