import { isRole, scopeBeyondRole, type Scope } from '../common/principal/permission-table';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { EntityManager, IsNull, MoreThan, Repository } from 'typeorm';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { ProblemException } from '../common/problem/problem.exception';
import { AuthConfig } from './auth.config';
import { ApiKey } from './api-key.entity';
import { runPrepared, type PreparedStatement } from '../common/database/prepared-statement';

export const API_KEY_PREFIX = 'svc_live_';
const KEY_MATERIAL_LENGTH = 40;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const VISIBLE_PREFIX_LENGTH = 12;
/** `lastUsedOn` is written at most this often per key: a write per request would double the load. */
const LAST_USE_RESOLUTION_MS = 60_000;

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** `svc_live_` + 40 base62 characters (~238 bits), drawn without modulo bias. */
export function generateApiKey(): string {
  let material = '';
  while (material.length < KEY_MATERIAL_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && material.length < KEY_MATERIAL_LENGTH) material += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + material;
}

export type ApiKeyRejection = 'unknown' | 'revoked' | 'expired';

/** What authenticating with a key reads of it (ApiKeyService.verify). */
export type VerifiedApiKey = Pick<
  ApiKey,
  'id' | 'workspaceId' | 'userId' | 'scopes' | 'allowedNetworks' | 'revokedOn' | 'expiresOn' | 'lastUsedOn'
>;

/** Every authenticated request runs it: a prepared statement (src/common/database/prepared-statement.ts). */
export const KEY_BY_HASH: PreparedStatement = {
  name: 'api_key_by_hash',
  text: `SELECT id, workspace_id AS "workspaceId", user_id AS "userId", scopes,
                allowed_networks AS "allowedNetworks", revoked_on AS "revokedOn", expires_on AS "expiresOn",
                last_used_on AS "lastUsedOn"
           FROM api_keys WHERE key_hash = $1`,
};

/** What the audit log keeps of a key: never the key nor its hash. */
function keyFacts(key: ApiKey): Record<string, unknown> {
  return {
    name: key.name,
    prefix: key.prefix,
    expiresOn: key.expiresOn,
    userId: key.userId,
    scopes: key.scopes,
    allowedNetworks: key.allowedNetworks,
  };
}

@Injectable()
export class ApiKeyService {
  constructor(
    @InjectRepository(ApiKey) private readonly apiKeys: Repository<ApiKey>,
    private readonly config: AuthConfig,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Creates a key and returns it in clear: the only time it is ever available. The key belongs to the
   * workspace; `userId` (null for none) only says whose profile it shows. A workspace holds at most
   * API_KEYS_MAX_PER_WORKSPACE live keys (422 `api-key-limit`): each key is a credential to manage, and the
   * workspace's rate limit is shared by all of them (RATE_LIMIT_WORKSPACE_PER_MINUTE). The audit event
   * `api_key.created` (by `actor`) is written in the key's transaction.
   */
  async create(
    workspaceId: string,
    userId: string | null,
    options: {
      name?: string;
      expiresInDays?: number;
      /** Absent: `admin` (an operator's key, the demo workspace's). */
      scopes?: Scope[];
      allowedNetworks?: string[] | null;
      /** Hold the scopes to what the creator's role allows, read under lock in the key's transaction. */
      creatorRoleCap?: boolean;
      manager?: EntityManager;
      actor: AuditActor;
    },
  ): Promise<{ id: string; apiKey: string; prefix: string; expiresOn: Date | null; key: ApiKey }> {
    const apiKey = generateApiKey();
    const expiresOn =
      options.expiresInDays === undefined ? null : new Date(Date.now() + options.expiresInDays * 86_400_000);
    const insert = async (manager: EntityManager): Promise<ApiKey> => {
      await this.assertBelowLimit(manager, workspaceId);
      const scopes = options.scopes ?? ['admin'];
      if (options.creatorRoleCap) await assertWithinCreatorRole(manager, workspaceId, userId, scopes);
      const repository = manager.getRepository(ApiKey);
      const key = await repository.save(
        repository.create({
          workspaceId,
          userId,
          name: options.name ?? '',
          scopes,
          allowedNetworks: options.allowedNetworks ?? null,
          prefix: apiKey.slice(0, VISIBLE_PREFIX_LENGTH),
          keyHash: hashApiKey(apiKey),
          revokedOn: null,
          expiresOn,
          lastUsedOn: null,
        }),
      );
      await this.audit.record(manager, {
        actor: options.actor,
        workspaceId,
        action: 'api_key.created',
        target: { type: 'api_key', id: key.id },
        after: keyFacts(key),
      });
      return key;
    };
    const saved = options.manager
      ? await insert(options.manager)
      : await this.apiKeys.manager.transaction(insert);
    return { id: saved.id, apiKey, prefix: saved.prefix, expiresOn, key: saved };
  }

  /**
   * Creations of one workspace take turns (a transaction-scoped advisory lock, as for webhook endpoints), so
   * concurrent requests cannot each count 49 and end at 51.
   */
  private async assertBelowLimit(manager: EntityManager, workspaceId: string): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`api-keys:${workspaceId}`]);
    const now = new Date();
    const live = await manager.count(ApiKey, {
      where: [
        { workspaceId, revokedOn: IsNull(), expiresOn: IsNull() },
        { workspaceId, revokedOn: IsNull(), expiresOn: MoreThan(now) },
      ],
    });
    const limit = this.config.API_KEYS_MAX_PER_WORKSPACE;
    if (live >= limit) {
      throw new ProblemException(
        'api-key-limit',
        `A workspace has at most ${limit} API keys; revoke one first.`,
        { limit },
      );
    }
  }

  async verify(apiKey: string): Promise<{ key: VerifiedApiKey } | { rejected: ApiKeyRejection }> {
    const [key] = await runPrepared<VerifiedApiKey>(this.apiKeys.manager.connection, KEY_BY_HASH, [
      hashApiKey(apiKey),
    ]);
    if (!key) return { rejected: 'unknown' };
    if (key.revokedOn) return { rejected: 'revoked' };
    if (key.expiresOn && key.expiresOn.getTime() <= Date.now()) return { rejected: 'expired' };
    return { key };
  }

  /**
   * Revokes by the key in clear (the operator's CLI); answers the key's id and revocation time, null for an
   * unknown key. A key already revoked stays as it was, with no new event.
   */
  async revoke(apiKey: string, actor: AuditActor): Promise<{ id: string; revokedOn: Date } | null> {
    return this.apiKeys.manager.transaction(async (tx) => {
      const key = await tx
        .getRepository(ApiKey)
        .findOne({ where: { keyHash: hashApiKey(apiKey) }, lock: { mode: 'pessimistic_write' } });
      if (!key) return null;
      if (!key.revokedOn) {
        key.revokedOn = new Date();
        await tx.getRepository(ApiKey).update(key.id, { revokedOn: key.revokedOn });
        await this.recordRevocation(tx, key, actor);
      }
      return { id: key.id, revokedOn: key.revokedOn };
    });
  }

  /** The workspace's live keys (not revoked), newest first; `createdBy`: only that user's. */
  listLive(workspaceId: string, createdBy?: string): Promise<ApiKey[]> {
    return this.apiKeys.find({
      where: { workspaceId, revokedOn: IsNull(), ...(createdBy !== undefined ? { userId: createdBy } : {}) },
      order: { createdOn: 'DESC', id: 'DESC' },
    });
  }

  /**
   * Revokes a key of the workspace by id, with its audit event in the same transaction; false when the
   * workspace has no such live key.
   */
  async revokeInWorkspace(
    workspaceId: string,
    id: string,
    actor: AuditActor,
    createdBy?: string,
  ): Promise<boolean> {
    return this.apiKeys.manager.transaction(async (tx) => {
      const key = await tx.getRepository(ApiKey).findOne({
        where: {
          id,
          workspaceId,
          revokedOn: IsNull(),
          ...(createdBy !== undefined ? { userId: createdBy } : {}),
        },
        lock: { mode: 'pessimistic_write' },
      });
      // Locked, then checked again: of two revocations racing, one finds it already revoked.
      const result = key
        ? await tx.getRepository(ApiKey).update({ id, revokedOn: IsNull() }, { revokedOn: new Date() })
        : null;
      if (!key || !result?.affected) return false;
      await this.recordRevocation(tx, key, actor);
      return true;
    });
  }

  private recordRevocation(tx: EntityManager, key: ApiKey, actor: AuditActor): Promise<string> {
    return this.audit.record(tx, {
      actor,
      workspaceId: key.workspaceId,
      action: 'api_key.revoked',
      target: { type: 'api_key', id: key.id },
      before: keyFacts(key),
    });
  }

  /**
   * Records an authenticated use, at most once a minute per key: the conditional UPDATE lets only one of
   * many concurrent requests write, and a key just noted is skipped without a query.
   */
  async noteUse(key: Pick<ApiKey, 'id' | 'lastUsedOn'>): Promise<void> {
    const now = Date.now();
    if (key.lastUsedOn && now - key.lastUsedOn.getTime() < LAST_USE_RESOLUTION_MS) return;
    await this.apiKeys
      .createQueryBuilder()
      .update(ApiKey)
      .set({ lastUsedOn: () => 'now()' })
      .where('id = :id', { id: key.id })
      .andWhere('(last_used_on IS NULL OR last_used_on < :stale)', {
        stale: new Date(now - LAST_USE_RESOLUTION_MS),
      })
      .execute();
  }
}

/**
 * SQL: whether the API key `idColumn` still authenticates (not revoked, not expired): `ApiKeyService.verify`'s
 * rule, for a statement that decides on something the key minted (a realtime client secret's redemption).
 */
export function apiKeyLiveSql(idColumn: string): string {
  return `EXISTS (SELECT 1 FROM api_keys live_key WHERE live_key.id = ${idColumn}
    AND live_key.revoked_on IS NULL AND (live_key.expires_on IS NULL OR live_key.expires_on > now()))`;
}

/**
 * Holds the key's row shared until the transaction ends, so a revocation (an UPDATE of the row) waits for
 * what is being decided under it, or is seen by it once committed.
 */
export async function lockApiKeyShared(manager: EntityManager, keyId: string): Promise<void> {
  await manager.query('SELECT 1 FROM api_keys WHERE id = $1 FOR SHARE', [keyId]);
}

/**
 * A key may never hold more than its creator's role allows: the creator's membership is read locked (FOR
 * SHARE) in the key's transaction, so a demotion or removal at the same time either comes first and refuses
 * the key, or waits for it and finds it (to revoke, listed on the member).
 */
async function assertWithinCreatorRole(
  manager: EntityManager,
  workspaceId: string,
  userId: string | null,
  scopes: readonly Scope[],
): Promise<void> {
  const [member] = userId
    ? await manager.query<Array<{ role: unknown }>>(
        'SELECT role FROM workspace_members WHERE workspace_id = $1 AND user_id = $2 FOR SHARE',
        [workspaceId, userId],
      )
    : [];
  if (!member || !isRole(member.role)) {
    throw new ProblemException('forbidden', 'The user is not a member of any workspace.');
  }
  const beyond = scopeBeyondRole(member.role, scopes);
  if (beyond !== null) {
    throw new ProblemException(
      'forbidden',
      `A key cannot hold more than its creator's role (${member.role}) allows: its scopes need \`${beyond}\`.`,
      { permission: beyond },
    );
  }
}
