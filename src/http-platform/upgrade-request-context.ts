import { restrictToAllowedNetworks } from '../auth/allowed-networks';
import { loggedQuery } from '../auth/request-log-query';
import { assertPermitted } from '../auth/authentication.guard';
import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ApiKeyNetworks } from '../auth/api-key-networks.service';
import { ApiKeyRequestLog } from '../auth/api-key-request-log.service';
import {
  rateLimitCaller,
  rateLimitHeaders,
  rateLimitRefusal,
  RateLimitService,
} from '../common/http/rate-limit.service';
import { acceptedRequestId, REQUEST_ID_HEADER } from '../common/logging/request-id';
import type { AuthOutcome } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';

/** Express's compiled `trust proxy` setting: whether the address `hops` away from the server is a trusted proxy. */
type TrustProxy = (address: string, hops: number) => boolean;

/** One WebSocket upgrade request being answered. */
export interface UpgradeRequest {
  readonly requestId: string;
  /** Headers of the answer, the 101 or a refusal: X-Request-Id, and the x-ratelimit-* ones once metered. */
  readonly headers: Record<string, string>;
  readonly at: Date;
  readonly started: bigint;
}

/**
 * What an HTTP request passes through before a controller, for a WebSocket upgrade (which never reaches
 * Express: the HTTP server hands it to the gateway): a request id, the same rate-limit buckets as HTTP
 * (RateLimitService, in Redis, shared by every API process; the caller's key or user and workspace when
 * authenticated, its address under TRUST_PROXY otherwise), and the API key's request log.
 */
@Injectable()
export class UpgradeRequestContext {
  constructor(
    private readonly rateLimits: RateLimitService,
    private readonly requestLog: ApiKeyRequestLog,
    private readonly adapterHost: HttpAdapterHost,
    private readonly keyNetworks: ApiKeyNetworks,
  ) {}

  /** The request id is the caller's X-Request-Id when acceptable, else a new one, as for HTTP requests. */
  start(request: IncomingMessage): UpgradeRequest {
    const requestId = acceptedRequestId(request.headers['x-request-id']) ?? randomUUID();
    return {
      requestId,
      headers: { [REQUEST_ID_HEADER]: requestId },
      at: new Date(),
      started: process.hrtime.bigint(),
    };
  }

  /**
   * The upgrade's credential after the checks every request passes: an API key's allowed networks, and the
   * permission to stream (`transcriptions:write`, as for uploads), both by the rules HTTP routes use.
   */
  admitted(request: IncomingMessage, outcome: AuthOutcome): AuthOutcome {
    const restricted = restrictToAllowedNetworks(outcome, this.clientAddress(request));
    if (restricted.kind !== 'authenticated') return restricted;
    try {
      assertPermitted(restricted.principal, 'transcriptions:write');
      return restricted;
    } catch (error) {
      if (error instanceof ProblemException) return { kind: 'failed', problem: error };
      throw error;
    }
  }

  /**
   * Charges the upgrade to its caller, exactly as an HTTP request is charged: the rate-limit headers are added
   * to the answer's, and over the limit the answer is the 429 (with Retry-After). Fails open as HTTP does.
   */
  async meter(
    upgrade: UpgradeRequest,
    request: IncomingMessage,
    auth: AuthOutcome,
  ): Promise<ProblemException | null> {
    const address = this.clientAddress(request);
    if (auth.kind === 'authenticated') {
      // As for HTTP: an API key's first use from a network is an audit event (ApiKeyNetworks).
      await this.keyNetworks.noteUse(auth.principal, address, {
        clientIp: address ?? null,
        requestId: upgrade.requestId,
      });
    }
    const decision = await this.rateLimits.meter(rateLimitCaller(auth, address));
    if (!decision) return null;
    Object.assign(upgrade.headers, rateLimitHeaders(decision));
    return rateLimitRefusal(decision);
  }

  /** Logs an upgrade an API key authenticated, as its HTTP requests are: 101 when switched, else the refusal's status. */
  answered(upgrade: UpgradeRequest, request: IncomingMessage, auth: AuthOutcome, status: number): void {
    const apiKeyId = auth.kind === 'authenticated' ? auth.principal.apiKeyId : undefined;
    if (!apiKeyId) return;
    this.requestLog.record({
      apiKeyId,
      at: upgrade.at,
      method: request.method ?? 'GET',
      path: new URL(request.url ?? '/', 'http://localhost').pathname,
      query: loggedQuery(request.url ?? '/'),
      status,
      durationMs: Math.round(Number(process.hrtime.bigint() - upgrade.started) / 1e6),
      requestId: upgrade.requestId,
    });
  }

  /** The client's address as Express's `request.ip` has it for an HTTP request (the same `trust proxy` setting). */
  private clientAddress(request: IncomingMessage): string | undefined {
    const app = this.adapterHost.httpAdapter?.getInstance<{ get(setting: string): unknown }>();
    const trust = app?.get('trust proxy fn') as TrustProxy | undefined;
    return clientAddress(request, trust ?? (() => false));
  }
}

/**
 * proxy-addr's rule, which Express applies: from the peer outwards through X-Forwarded-For (rightmost first),
 * the first address that is not a trusted proxy; the leftmost when all of them are.
 */
export function clientAddress(request: IncomingMessage, trust: TrustProxy): string | undefined {
  const header = request.headers['x-forwarded-for'];
  const forwarded = (typeof header === 'string' ? header : '')
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '')
    .reverse();
  const addresses = [request.socket.remoteAddress, ...forwarded];
  for (let hop = 0; hop < addresses.length - 1; hop++) {
    const address = addresses[hop];
    if (address === undefined || !trust(address, hop)) return address;
  }
  return addresses[addresses.length - 1];
}
