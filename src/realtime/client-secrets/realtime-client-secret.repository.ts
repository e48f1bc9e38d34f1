import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { lockApiKeyShared } from '../../auth/api-key.service';
import { credentialLiveSql } from '../../auth/credential-liveness';
import { lockUserShared } from '../../auth/sign-in-locks';
import type { SessionConfig } from '../realtime-session-config';
import { RealtimeClientSecret, type ClientSecretProtocol } from './realtime-client-secret.entity';

/** A secret consumed by its first use: whose it is and the session it opens. */
export interface ConsumedClientSecret {
  id: string;
  workspaceId: string;
  userId: string | null;
  session: SessionConfig;
  /** The minting credential: its API key, or its dashboard sign-in (null for a token without one). */
  apiKeyId: string | null;
  signInId: string | null;
}

/** Why a secret opened nothing. */
export interface ClientSecretState {
  usedOn: Date | null;
  expiresOn: Date;
  /** The credential that minted it no longer opens its workspace. */
  credentialEnded: boolean;
  protocol: ClientSecretProtocol;
}

/** The secrets of a workspace that can still open a session: how many, and when the first of them expires. */
export interface OutstandingClientSecrets {
  count: number;
  firstExpiry: Date | null;
}

/**
 * Whether the credential that minted the secret `s` would still open its workspace: the API key live, or
 * (minted with a dashboard token) the user still acting in the workspace and, for a sign-in's token, the sign-in
 * not ended. A deleted user's secrets have `user_id` set null by the foreign key.
 */
const CREDENTIAL_LIVE = credentialLiveSql({
  apiKeyId: 's.api_key_id',
  userId: 's.user_id',
  workspaceId: 's.workspace_id',
  signInId: 's.sign_in_id',
});

/**
 * The realtime client secrets, stored as hashes. One style, as for transcriptions and the ledger: TypeORM's
 * query builder, `save` to insert; raw statements where one statement checks and acts at once (consume, the
 * removal of what can no longer open anything).
 */
@Injectable()
export class RealtimeClientSecretRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `work` with the workspace's secrets to itself among minters: mints of one workspace take turns (a
   * transaction-scoped advisory lock, as for API keys), so concurrent mints cannot each count one below the cap.
   */
  forWorkspace<T>(workspaceId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `realtime-client-secrets:${workspaceId}`,
      ]);
      return work(manager);
    });
  }

  /** Spent, expired and orphaned (their credential ended) secrets of the workspace: none can open anything. */
  async removeSpent(manager: EntityManager, workspaceId: string): Promise<void> {
    await manager.query(
      `DELETE FROM realtime_client_secrets s WHERE s.workspace_id = $1
        AND (s.used_on IS NOT NULL OR s.expires_on <= now() OR NOT ${CREDENTIAL_LIVE})`,
      [workspaceId],
    );
  }

  /** The workspace's unused, unexpired secrets. */
  async outstanding(manager: EntityManager, workspaceId: string): Promise<OutstandingClientSecrets> {
    const row = await manager
      .createQueryBuilder(RealtimeClientSecret, 's')
      .select('count(*)::int', 'count')
      .addSelect('min(s.expiresOn)', 'firstExpiry')
      .where('s.workspaceId = :workspaceId', { workspaceId })
      .andWhere('s.usedOn IS NULL AND s.expiresOn > now()')
      .getRawOne<{ count: number; firstExpiry: Date | null }>();
    return { count: row?.count ?? 0, firstExpiry: row?.firstExpiry ?? null };
  }

  insert(
    manager: EntityManager,
    secret: Omit<RealtimeClientSecret, 'id' | 'createdOn' | 'usedOn'>,
  ): Promise<RealtimeClientSecret> {
    const repository = manager.getRepository(RealtimeClientSecret);
    return repository.save(repository.create({ ...secret, usedOn: null }));
  }

  /**
   * Marks the secret used if it is unused, unexpired and its minting credential still live, in the statement
   * that checks it, so two concurrent uses cannot both succeed; null when it opens nothing. The credential's row
   * is held shared first (the user's, sign-in-locks.ts, or the key's): a sign-out, a new password, a user's
   * deletion or a key's revocation racing the redemption either commits first, and the check sees it, or waits
   * until the secret is spent. Lock order: the credential's row, then the secret's (as a user's deletion takes
   * them, the secret's `user_id` being set null by its cascade).
   */
  consume(secretHash: string, protocol: ClientSecretProtocol): Promise<ConsumedClientSecret | null> {
    return this.dataSource.transaction(async (manager) => {
      const minted = await manager
        .createQueryBuilder(RealtimeClientSecret, 's')
        .select(['s.id', 's.apiKeyId', 's.userId'])
        .where('s.secretHash = :secretHash', { secretHash })
        .getOne();
      if (!minted) return null;
      if (minted.apiKeyId !== null) await lockApiKeyShared(manager, minted.apiKeyId);
      else if (minted.userId !== null) await lockUserShared(manager, minted.userId);
      const [rows] = await manager.query<[ConsumedClientSecretRow[], number]>(
        `UPDATE realtime_client_secrets s SET used_on = now()
          WHERE s.id = $1 AND s.protocol = $2 AND s.used_on IS NULL AND s.expires_on > now()
            AND ${CREDENTIAL_LIVE}
          RETURNING s.id, s.workspace_id, s.user_id, s.session, s.api_key_id, s.sign_in_id`,
        [minted.id, protocol],
      );
      const row = rows[0];
      return row
        ? {
            id: row.id,
            workspaceId: row.workspace_id,
            userId: row.user_id,
            session: row.session,
            apiKeyId: row.api_key_id,
            signInId: row.sign_in_id,
          }
        : null;
    });
  }

  /** Why a secret opened nothing: whether it is known, used, expired, or its credential ended. */
  async findState(secretHash: string): Promise<ClientSecretState | null> {
    const rows = await this.dataSource.query<
      Array<{
        used_on: Date | null;
        expires_on: Date;
        credential_live: boolean;
        protocol: ClientSecretProtocol;
      }>
    >(
      `SELECT s.used_on, s.expires_on, s.protocol, ${CREDENTIAL_LIVE} AS credential_live
         FROM realtime_client_secrets s WHERE s.secret_hash = $1`,
      [secretHash],
    );
    const row = rows[0];
    return row
      ? {
          usedOn: row.used_on,
          expiresOn: row.expires_on,
          credentialEnded: !row.credential_live,
          protocol: row.protocol,
        }
      : null;
  }
}

interface ConsumedClientSecretRow {
  id: string;
  workspace_id: string;
  user_id: string | null;
  session: SessionConfig;
  api_key_id: string | null;
  sign_in_id: string | null;
}
