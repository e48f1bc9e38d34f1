import { restrictToAllowedNetworks } from '../auth/allowed-networks';
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { ApiKeyNetworks } from '../auth/api-key-networks.service';
import { CredentialResolver } from '../auth/credential-resolver.service';
import { RequestWithAuth } from '../common/principal/principal';
import {
  rateLimitCaller,
  rateLimitHeaders,
  rateLimitRefusal,
  RateLimitService,
} from '../common/http/rate-limit.service';
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
 * Runs for every request, matched route or not: resolves the caller (an API key's first use from a network is
 * an audit event, ApiKeyNetworks), then charges the rate-limit buckets
 * (per API key or user and per workspace when authenticated, per client IP otherwise: `request.ip`, which follows
 * X-Forwarded-For only from the proxies TRUST_PROXY names) and sets the x-ratelimit-* headers.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  constructor(
    private readonly credentials: CredentialResolver,
    private readonly rateLimits: RateLimitService,
    private readonly keyNetworks: ApiKeyNetworks,
  ) {}

  async use(request: RequestWithAuth, response: Response, next: NextFunction): Promise<void> {
    const path = requestPath(request);
    if (UNMETERED_PATHS.has(path)) {
      request.auth = { kind: 'anonymous' };
      return next();
    }
    request.auth = CREDENTIAL_FREE_PATHS.has(path)
      ? { kind: 'anonymous' }
      : restrictToAllowedNetworks(await this.credentials.resolve(request, response), request.ip);
    if (request.auth.kind === 'authenticated')
      await this.keyNetworks.noteUse(request.auth.principal, request.ip);
    const decision = await this.rateLimits.meter(rateLimitCaller(request.auth, request.ip));
    if (!decision) return next();
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) response.setHeader(name, value);
    const refusal = rateLimitRefusal(decision);
    if (refusal) throw refusal;
    next();
  }
}
