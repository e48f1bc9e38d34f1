import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { API_KEY_PREFIX, generateApiKey, hashApiKey } from '../../auth/api-key.service';
import type { AuthOutcome, Principal } from '../../common/principal/principal';
import { isRecord } from '../../common/is-record';
import { CLIENT_SECRET_PERMISSIONS } from '../../common/principal/permission-table';
import { ProblemException } from '../../common/problem/problem.exception';
import { RealtimeRequestError } from '../realtime-errors';
import {
  applySessionUpdate,
  describeSession,
  initialSessionConfig,
  type SessionConfig,
} from '../realtime-session-config';
import { RealtimeConfig } from '../realtime.config';
import { RealtimeSessionsService } from '../realtime-sessions.service';
import type { ClientSecretProtocol, RealtimeClientSecret } from './realtime-client-secret.entity';
import { RealtimeClientSecretRepository } from './realtime-client-secret.repository';

/** OpenAI's ephemeral-key prefix, so logs and secret scanners tell a client secret from an API key. */
export const CLIENT_SECRET_PREFIX = 'ek_';
/** OpenAI's default lifetime and bounds for `expires_after.seconds`. */
export const CLIENT_SECRET_DEFAULT_SECONDS = 600;
export const CLIENT_SECRET_MIN_SECONDS = 10;
export const CLIENT_SECRET_MAX_SECONDS = 7200;
/** The model a secret minted without one starts with (the standard tier, as on the file route). */
const DEFAULT_MODEL = 'whisper-1';

/** POST /v1/realtime/client_secrets's answer, in OpenAI's shape. */
export interface MintedClientSecret {
  value: string;
  /** Unix seconds. */
  expires_at: number;
  /** The session the secret opens: session.created's object without the per-session id and transcription. */
  session: object;
}

/** What a presented client secret opens: the workspace's principal and the bound session configuration. */
export type RedeemedClientSecret =
  | { outcome: Extract<AuthOutcome, { kind: 'authenticated' }>; config: SessionConfig }
  | { outcome: Extract<AuthOutcome, { kind: 'failed' }>; config: null };

/**
 * Client secrets of realtime sessions: minted by an authenticated call (an API key or a dashboard session) for a
 * page that must not hold that credential, then presented on the WebSocket by the page. A secret belongs to its
 * workspace, is stored only as a SHA-256 hash, expires, and opens one session: the first upgrade that presents
 * it consumes it in the same statement that checks it, so two concurrent uses cannot both succeed. It lives no
 * longer than the credential that minted it: the redemption checks that credential (the key not revoked or
 * expired; the sign-in not ended by sign-out, reuse detection or a new password; the user not deleted), which
 * covers every way a credential ends, at the one moment that matters. A workspace holds at most
 * REALTIME_CLIENT_SECRETS_MAX_PER_WORKSPACE unused ones.
 */
@Injectable()
export class RealtimeClientSecretsService {
  constructor(
    private readonly secrets: RealtimeClientSecretRepository,
    private readonly sessions: RealtimeSessionsService,
    private readonly config: RealtimeConfig,
  ) {}

  async mint(principal: Principal, body: unknown): Promise<MintedClientSecret> {
    const request = body === undefined || body === null ? {} : body;
    if (!isRecord(request))
      throw ProblemException.validation({ formErrors: ['The body must be a JSON object.'] });
    const unknown = Object.keys(request).find((member) => member !== 'expires_after' && member !== 'session');
    if (unknown !== undefined) {
      throw ProblemException.field(unknown, `${unknown} is not a member of a client secret request.`);
    }
    const lifetimeSeconds = parseExpiresAfter(request.expires_after);
    const config = await this.sessionConfig(principal.workspaceId, request.session);
    const { secret, expiresOn } = await this.store(principal, 'openai', config, lifetimeSeconds);
    return {
      value: secret,
      expires_at: Math.floor(expiresOn.getTime() / 1000),
      session: boundSession(config),
    };
  }

  /**
   * GET /v3/token (AssemblyAI's temporary streaming token): a client secret that opens one /v3/ws session within
   * `expiresInSeconds`, that session lasting at most `maxSessionSeconds` (within REALTIME_MAX_SESSION_WALL_SECONDS).
   * The session's other settings come from the /v3/ws query, as AssemblyAI's do.
   */
  async mintStreamingToken(
    principal: Principal,
    expiresInSeconds: number,
    maxSessionSeconds: number,
  ): Promise<{ token: string; expires_in_seconds: number }> {
    const config: SessionConfig = {
      ...initialSessionConfig(DEFAULT_MODEL),
      maxWallSeconds: Math.min(maxSessionSeconds, this.config.REALTIME_MAX_SESSION_WALL_SECONDS),
    };
    const { secret } = await this.store(principal, 'assemblyai', config, expiresInSeconds);
    return { token: secret, expires_in_seconds: expiresInSeconds };
  }

  private async store(
    principal: Principal,
    protocol: ClientSecretProtocol,
    config: SessionConfig,
    lifetimeSeconds: number,
  ): Promise<{ secret: string; expiresOn: Date }> {
    const secret = CLIENT_SECRET_PREFIX + generateApiKey().slice(API_KEY_PREFIX.length);
    const saved = await this.secrets.forWorkspace(principal.workspaceId, async (manager) => {
      await this.secrets.removeSpent(manager, principal.workspaceId);
      await this.assertBelowLimit(manager, principal.workspaceId);
      return this.secrets.insert(manager, {
        workspaceId: principal.workspaceId,
        userId: principal.userId,
        ...mintingCredential(principal),
        secretHash: hashApiKey(secret),
        protocol,
        session: config,
        expiresOn: new Date(Date.now() + lifetimeSeconds * 1000),
      });
    });
    return { secret, expiresOn: saved.expiresOn };
  }

  /**
   * Consumes a presented secret on the WebSocket of `protocol`: the principal and configuration of its session, or
   * why it opens none (a secret minted for the other protocol is refused and stays unused).
   */
  async redeem(secret: string, protocol: ClientSecretProtocol): Promise<RedeemedClientSecret> {
    const secretHash = hashApiKey(secret);
    const consumed = await this.secrets.consume(secretHash, protocol);
    if (consumed) {
      const principal: Principal = {
        workspaceId: consumed.workspaceId,
        userId: consumed.userId,
        credential: 'client-secret',
        permissions: new Set(CLIENT_SECRET_PERMISSIONS),
        rateLimitKey: `client-secret:${consumed.id}`,
        mintedBy: { apiKeyId: consumed.apiKeyId, signInId: consumed.signInId },
      };
      return { outcome: { kind: 'authenticated', principal }, config: consumed.session };
    }
    const known = await this.secrets.findState(secretHash);
    const detail = !known
      ? 'The client secret is not known (or its workspace was deleted).'
      : known.protocol !== protocol
        ? known.protocol === 'assemblyai'
          ? 'This token was minted by GET /v3/token and opens AssemblyAI streaming sessions (/v3/ws) only.'
          : 'This client secret was minted by POST /v1/realtime/client_secrets and opens /v1/realtime sessions only.'
        : known.usedOn
          ? 'The client secret was already used: each opens one session. Mint another with POST /v1/realtime/client_secrets.'
          : known.expiresOn.getTime() <= Date.now()
            ? 'The client secret has expired. Mint another with POST /v1/realtime/client_secrets.'
            : 'The credential that minted the client secret has ended (signed out, a new password, the user deleted, or the API key revoked or expired): it opens nothing. Mint another with a live credential.';
    return {
      outcome: { kind: 'failed', problem: new ProblemException('unauthorized', detail) },
      config: null,
    };
  }

  /**
   * Refuses a mint that would give the workspace more than its cap of unused, unexpired secrets (spent,
   * expired and orphaned ones were just removed): 429 until the first of them expires or is used.
   */
  private async assertBelowLimit(manager: EntityManager, workspaceId: string): Promise<void> {
    const limit = this.config.REALTIME_CLIENT_SECRETS_MAX_PER_WORKSPACE;
    const outstanding = await this.secrets.outstanding(manager, workspaceId);
    if (outstanding.count < limit) return;
    const retryAfterSeconds = outstanding.firstExpiry
      ? Math.max(1, Math.ceil((new Date(outstanding.firstExpiry).getTime() - Date.now()) / 1000))
      : 1;
    throw new ProblemException(
      'client-secret-limit',
      `This workspace already holds ${outstanding.count} unused client secrets, the most allowed (${limit}); one is freed when a secret is used, expires or its credential ends. Try again in ${retryAfterSeconds} s.`,
      { limit },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }

  /**
   * The session the secret opens, checked as `session.update` and the open of a session check it (the tier must
   * stream, the language and the saved vocabulary as for uploads), so a secret never opens a refused session.
   */
  private async sessionConfig(workspaceId: string, session: unknown): Promise<SessionConfig> {
    try {
      const config =
        session === undefined
          ? initialSessionConfig(DEFAULT_MODEL)
          : applySessionUpdate(initialSessionConfig(DEFAULT_MODEL), session);
      this.sessions.assertStreams(config.tier, 'session.audio.input.transcription.model');
      await this.sessions.resolveVocabulary(workspaceId, config);
      return config;
    } catch (error) {
      if (!(error instanceof RealtimeRequestError)) throw error;
      throw ProblemException.field(error.param ?? 'session', error.message);
    }
  }
}

/**
 * What the secret's redemption will check is still live: the API key that minted it, or the dashboard sign-in
 * (`sid`) of the access token (none for a token of no sign-in: then the user alone).
 */
function mintingCredential(principal: Principal): Pick<RealtimeClientSecret, 'apiKeyId' | 'signInId'> {
  if (principal.credential === 'api-key' && principal.apiKeyId !== undefined) {
    return { apiKeyId: principal.apiKeyId, signInId: null };
  }
  if (principal.credential === 'jwt' && principal.userId !== null) {
    return { apiKeyId: null, signInId: principal.signInId ?? null };
  }
  // A client secret authenticates a WebSocket session only, never this route.
  throw new ProblemException(
    'forbidden',
    'Client secrets are minted with an API key or a dashboard sign-in.',
  );
}

function parseExpiresAfter(value: unknown): number {
  // Absent means OpenAI's default; null is refused like any other non-object (the contract has no null here).
  if (value === undefined) return CLIENT_SECRET_DEFAULT_SECONDS;
  if (!isRecord(value)) throw ProblemException.field('expires_after', 'expires_after must be an object.');
  if (value.anchor !== undefined && value.anchor !== 'created_at') {
    throw ProblemException.field('expires_after.anchor', 'expires_after.anchor must be "created_at".');
  }
  const seconds = value.seconds === undefined ? CLIENT_SECRET_DEFAULT_SECONDS : value.seconds;
  if (
    typeof seconds !== 'number' ||
    !Number.isInteger(seconds) ||
    seconds < CLIENT_SECRET_MIN_SECONDS ||
    seconds > CLIENT_SECRET_MAX_SECONDS
  ) {
    throw ProblemException.field(
      'expires_after.seconds',
      `expires_after.seconds must be a whole number from ${CLIENT_SECRET_MIN_SECONDS} to ${CLIENT_SECRET_MAX_SECONDS}.`,
    );
  }
  return seconds;
}

/** session.created's session object before the session exists: no id, no transcription yet. */
function boundSession(config: SessionConfig): object {
  const {
    id: _id,
    transcription_id: _transcriptionId,
    ...session
  } = describeSession(config, '', '') as Record<string, unknown>;
  return session;
}
