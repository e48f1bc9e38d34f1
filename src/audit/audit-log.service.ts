import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { currentClientAddress } from '../common/http/client-address';
import { currentRequestId } from '../common/logging/request-id';
import type { Principal } from '../common/principal/principal';
import {
  type AuditAction,
  type AuditActorType,
  type AuditCredential,
  type AuditTargetType,
  isAuditAction,
} from './audit-catalogue';
import { AuditEvent } from './audit-event.entity';
import { auditSnapshot } from './audit-snapshot';

/** Who did it, as an event keeps it. */
export interface AuditActor {
  type: AuditActorType;
  userId: string | null;
  apiKeyId: string | null;
  credential: AuditCredential | null;
}

const PRINCIPAL_CREDENTIALS: Record<Principal['credential'], AuditCredential> = {
  jwt: 'session',
  'api-key': 'api_key',
  'client-secret': 'client_secret',
};

/**
 * The actor of an authenticated call: its API key when a key made it (the key's creator is not the actor:
 * the key acts for the workspace), else its user.
 */
export function actorOf(principal: Principal): AuditActor {
  const credential = PRINCIPAL_CREDENTIALS[principal.credential];
  if (principal.apiKeyId) return { type: 'api_key', userId: null, apiKeyId: principal.apiKeyId, credential };
  if (principal.userId) return { type: 'user', userId: principal.userId, apiKeyId: null, credential };
  return { type: 'anonymous', userId: null, apiKeyId: null, credential };
}

/** A user who proved who they are on a sign-in route (their password, their refresh token). */
export function userActor(userId: string, credential: AuditCredential): AuditActor {
  return { type: 'user', userId, apiKeyId: null, credential };
}

/** Someone who proved nothing: a failed sign-in, a replayed refresh token. */
export function anonymousActor(credential: AuditCredential): AuditActor {
  return { type: 'anonymous', userId: null, apiKeyId: null, credential };
}

/** The operator's CLI: it runs with the database's own credentials and names no user. */
export const OPERATOR: AuditActor = { type: 'operator', userId: null, apiKeyId: null, credential: 'cli' };

export interface AuditTarget {
  type: AuditTargetType;
  id: string | null;
}

/** What a caller hands to `record`; `before`, `after` and `details` pass through auditSnapshot. */
export type AuditEventInput = {
  action: AuditAction;
  target: AuditTarget | null;
  /** Settings as they were and as they are (the changed ones, or all of a small group). */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** Facts of the act that are not settings (a network, an amount, the filters of an export). */
  details?: Record<string, unknown> | null;
  /**
   * Where the request came from, for work that runs outside the HTTP request's context (a WebSocket
   * upgrade); by default the request being served (its request id and client address), or none.
   */
  origin?: { clientIp: string | null; requestId: string | null };
} & ({ principal: Principal } | { actor: AuditActor; workspaceId: string });

/**
 * The audit log's one writer. `record` inserts the event with the caller's transaction, so the event commits
 * with the act or not at all: a failed act leaves no event, and an event that cannot be written fails the
 * act. It refuses a manager that is not in a transaction, so "in the same transaction" cannot be forgotten.
 */
@Injectable()
export class AuditLog {
  /** Answers the event's id. */
  async record(tx: EntityManager, event: AuditEventInput): Promise<string> {
    if (!tx.queryRunner?.isTransactionActive) {
      throw new Error('AuditLog.record needs the transaction of the act it records');
    }
    if (!isAuditAction(event.action)) throw new Error(`Unknown audit action ${String(event.action)}`);
    const actor = 'principal' in event ? actorOf(event.principal) : event.actor;
    const workspaceId = 'principal' in event ? event.principal.workspaceId : event.workspaceId;
    const origin = event.origin ?? { clientIp: currentClientAddress(), requestId: currentRequestId() };
    const row: Partial<AuditEvent> = {
      workspaceId,
      action: event.action,
      actorType: actor.type,
      actorUserId: actor.userId,
      actorApiKeyId: actor.apiKeyId,
      actorCredential: actor.credential,
      clientIp: origin.clientIp?.slice(0, 64) ?? null,
      requestId: origin.requestId,
      targetType: event.target?.type ?? null,
      targetId: event.target?.id ?? null,
      before: auditSnapshot(event.before),
      after: auditSnapshot(event.after),
      details: auditSnapshot(event.details),
    };
    // The snapshots' recursive JSON type is more than TypeORM's deep-partial type can follow.
    const inserted = await tx.getRepository(AuditEvent).insert(row as QueryDeepPartialEntity<AuditEvent>);
    return (inserted.identifiers[0] as { id: string }).id;
  }
}
