import { Injectable, Logger, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { CredentialResolver } from '../auth/credential-resolver.service';
import { RequestWithAuth } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';
import { RateLimitCaller, RateLimitDecision, RateLimitService } from '../common/http/rate-limit.service';
import { requestPath } from '../common/http/request-path';

/**
 * Liveness and the language list must answer without PostgreSQL (openapi.yaml makes them credential-free),
 * and /metrics has its own token: their callers are never looked up as API keys or JWTs, only counted per IP.
 */
const CREDENTIAL_FREE_PATHS = new Set(['/v1/health', '/v1/languages', '/metrics']);

/**
 * Never counted nor refused: a load balancer's probe answered 429 would take a healthy instance out of
 * service, and the probe does no work worth limiting.
 */
const UNMETERED_PATHS = new Set(['/v1/health', '/v1/health/ready']);

/**
 * Runs for every request, matched route or not: resolves the caller, then charges the rate-limit buckets
 * (per API key or user and per workspace when authenticated, per client IP otherwise: `request.ip`, which follows
 * X-Forwarded-For only from the proxies TRUST_PROXY names) and sets the x-ratelimit-* headers.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  private readonly logger = new Logger('RateLimit');

  constructor(
    private readonly credentials: CredentialResolver,
    private readonly rateLimits: RateLimitService,
  ) {}

  async use(request: RequestWithAuth, response: Response, next: NextFunction): Promise<void> {
    const path = requestPath(request);
    if (UNMETERED_PATHS.has(path)) {
      request.auth = { kind: 'anonymous' };
      return next();
    }
    request.auth = CREDENTIAL_FREE_PATHS.has(path)
      ? { kind: 'anonymous' }
      : await this.credentials.resolve(request, response);
    const principal = request.auth.kind === 'authenticated' ? request.auth.principal : null;
    const decision = await this.consume(
      principal
        ? { key: principal.rateLimitKey, authenticated: true, workspaceId: principal.workspaceId }
        : { key: `ip:${request.ip ?? 'unknown'}`, authenticated: false },
    );
    if (!decision) return next();
    response.setHeader('x-ratelimit-limit', String(decision.limit));
    response.setHeader('x-ratelimit-remaining', String(decision.remaining));
    response.setHeader('x-ratelimit-reset', String(decision.resetSeconds));
    if (decision.retryAfterSeconds !== null) {
      throw new ProblemException(
        'rate-limit',
        decision.scope === 'workspace'
          ? `Rate limit of ${decision.limit} requests per minute for the workspace (all its API keys and users together) exceeded; retry in ${decision.retryAfterSeconds} s.`
          : `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSeconds} s.`,
        {},
        { 'Retry-After': String(decision.retryAfterSeconds) },
      );
    }
    next();
  }

  /** Fails open: while Redis is unreachable requests are served unmetered (and logged), not refused. */
  private async consume(caller: RateLimitCaller): Promise<RateLimitDecision | null> {
    try {
      return await this.rateLimits.consume(caller);
    } catch (error) {
      this.logger.warn(`Rate limiting skipped, store unavailable: ${(error as Error).message}`);
      return null;
    }
  }
}
