import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { bearerCredential } from '../auth/authorization-header';
import { CredentialResolver } from '../auth/credential-resolver.service';
import type { AuthOutcome, RequestWithAuth } from '../common/principal/principal';
import { SessionCookies } from '../auth/session/session-cookies';
import { ASSEMBLYAI_STREAMING_PATH } from '../common/http/request-path';
import { ProblemException } from '../common/problem/problem.exception';
import { RealtimeConfig } from './realtime.config';
import {
  CLIENT_SECRET_PREFIX,
  RealtimeClientSecretsService,
} from './client-secrets/realtime-client-secrets.service';
import type { SessionConfig } from './realtime-session-config';

/**
 * The subprotocol that carries a credential where a WebSocket cannot send headers (browsers), as OpenAI's SDK
 * sends it: `openai-insecure-api-key.<client secret or API key>`.
 */
export const CREDENTIAL_PROTOCOL_PREFIX = 'openai-insecure-api-key.';
/** The subprotocol OpenAI's browser client offers beside the credential; chosen when offered. */
const REALTIME_PROTOCOL = 'realtime';

/** Who opens a session, with the configuration a client secret binds it to. */
export type UpgradeAdmission =
  | { kind: 'upgrade'; outcome: AuthOutcome; boundConfig: SessionConfig | null }
  /** Refused before the upgrade: a cookie sent by a page of a foreign origin. */
  | { kind: 'refuse'; problem: ProblemException };

/**
 * Authenticates a /v1/realtime upgrade. Credentials, first found first: `Authorization: Bearer` (API key, access
 * token or client secret), the `openai-insecure-api-key.` subprotocol (the same, for browsers), `X-API-KEY`,
 * and last the dashboard's session cookie — only from a page of the service's own origin or one listed in
 * REALTIME_COOKIE_ORIGINS: browsers send cookies with a WebSocket from any site and a WebSocket is not subject
 * to CORS, so without this check any site could open sessions as a signed-in user (cross-site WebSocket
 * hijacking).
 */
@Injectable()
export class RealtimeUpgradeAuthenticator {
  private readonly cookieOrigins: Set<string>;

  constructor(
    private readonly credentials: CredentialResolver,
    private readonly cookies: SessionCookies,
    private readonly clientSecrets: RealtimeClientSecretsService,
    config: RealtimeConfig,
  ) {
    this.cookieOrigins = new Set(config.REALTIME_COOKIE_ORIGINS.map((origin) => new URL(origin).origin));
  }

  async admit(request: IncomingMessage): Promise<UpgradeAdmission> {
    const authorization = request.headers.authorization;
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === ASSEMBLYAI_STREAMING_PATH && authorization === undefined) {
      // AssemblyAI's temporary token (GET /v3/token) comes as the `token` query parameter.
      const token = url.searchParams.get('token');
      if (token) {
        const { outcome, config } = await this.clientSecrets.redeem(token, 'assemblyai');
        return { kind: 'upgrade', outcome, boundConfig: config };
      }
    }
    const presented =
      authorization !== undefined ? bearerCredential(authorization) : protocolCredential(request);
    if (presented?.startsWith(CLIENT_SECRET_PREFIX)) {
      const { outcome, config } = await this.clientSecrets.redeem(
        presented,
        url.pathname === ASSEMBLYAI_STREAMING_PATH ? 'assemblyai' : 'openai',
      );
      return { kind: 'upgrade', outcome, boundConfig: config };
    }
    if (authorization === undefined && presented !== null) {
      // The credential resolver reads headers: the subprotocol's API key or token is resolved as a bearer one.
      request.headers.authorization = `Bearer ${presented}`;
    } else if (
      authorization === undefined &&
      request.headers['x-api-key'] === undefined &&
      this.cookies.sessionCredential(request as RequestWithAuth) !== null &&
      !this.cookieOriginAllowed(request)
    ) {
      return {
        kind: 'refuse',
        problem: new ProblemException(
          'forbidden',
          'The session cookie opens realtime sessions only from pages of this service (or of REALTIME_COOKIE_ORIGINS); ' +
            `this page's origin is ${request.headers.origin ?? 'not stated'}. Use a client secret (POST /v1/realtime/client_secrets).`,
        ),
      };
    }
    const outcome = await this.credentials.resolve(request as RequestWithAuth, {} as Response);
    return { kind: 'upgrade', outcome, boundConfig: null };
  }

  /** A browser always states the page's origin on a WebSocket handshake; a cookie without one is not trusted. */
  private cookieOriginAllowed(request: IncomingMessage): boolean {
    const origin = request.headers.origin;
    if (origin === undefined) return false;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return false;
    }
    return parsed.host === request.headers.host || this.cookieOrigins.has(parsed.origin);
  }
}

/** The offered subprotocols (`Sec-WebSocket-Protocol`, comma-separated). */
function offeredProtocols(request: IncomingMessage): string[] {
  const header = request.headers['sec-websocket-protocol'];
  return header === undefined ? [] : header.split(',').map((protocol) => protocol.trim());
}

function protocolCredential(request: IncomingMessage): string | null {
  const protocol = offeredProtocols(request).find((offered) =>
    offered.startsWith(CREDENTIAL_PROTOCOL_PREFIX),
  );
  const credential = protocol?.slice(CREDENTIAL_PROTOCOL_PREFIX.length);
  return credential ? credential : null;
}

/**
 * The subprotocol the server answers with: a browser fails a handshake whose answer names none of the protocols
 * it offered. `realtime` when offered (OpenAI's client), else the first offered, the credential's only when it
 * is the only one (it goes back to the client that sent it, nowhere else).
 */
export function chooseProtocol(offered: Set<string>): string | false {
  if (offered.has(REALTIME_PROTOCOL)) return REALTIME_PROTOCOL;
  const protocols = [...offered];
  return (
    protocols.find((protocol) => !protocol.startsWith(CREDENTIAL_PROTOCOL_PREFIX)) ?? protocols[0] ?? false
  );
}
