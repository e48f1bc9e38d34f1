import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SessionConfig } from '../realtime-session-config';
import { RealtimeClientSecret } from './realtime-client-secret.entity';

/** A secret consumed by its first use: whose it is and the session it opens. */
export interface ConsumedClientSecret {
  id: string;
  workspaceId: string;
  userId: string | null;
  session: SessionConfig;
}

/**
 * The realtime client secrets, stored as hashes. One style, as for transcriptions and the ledger: TypeORM's
 * query builder, `save` to insert; one raw statement (consume) because it checks and spends a secret at once.
 */
@Injectable()
export class RealtimeClientSecretRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Spent and expired secrets of the workspace: nothing is left to check on them. */
  async removeSpent(workspaceId: string): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(RealtimeClientSecret)
      .where('workspace_id = :workspaceId AND (used_on IS NOT NULL OR expires_on < now())', { workspaceId })
      .execute();
  }

  insert(secret: Omit<RealtimeClientSecret, 'id' | 'createdOn' | 'usedOn'>): Promise<RealtimeClientSecret> {
    const repository = this.dataSource.getRepository(RealtimeClientSecret);
    return repository.save(repository.create({ ...secret, usedOn: null }));
  }

  /**
   * Marks the secret used if it is unused and unexpired, in the statement that checks it, so two concurrent
   * uses cannot both succeed; null when it opens nothing.
   */
  async consume(secretHash: string): Promise<ConsumedClientSecret | null> {
    const [rows] = await this.dataSource.query<[ConsumedClientSecretRow[], number]>(
      `UPDATE realtime_client_secrets SET used_on = now()
        WHERE secret_hash = $1 AND used_on IS NULL AND expires_on > now()
        RETURNING id, workspace_id, user_id, session`,
      [secretHash],
    );
    const row = rows[0];
    return row
      ? { id: row.id, workspaceId: row.workspace_id, userId: row.user_id, session: row.session }
      : null;
  }

  /** Why a secret opened nothing: whether it is known, used, and when it expires. */
  findState(secretHash: string): Promise<Pick<RealtimeClientSecret, 'usedOn' | 'expiresOn'> | null> {
    return this.dataSource
      .createQueryBuilder(RealtimeClientSecret, 's')
      .select(['s.usedOn', 's.expiresOn'])
      .where('s.secretHash = :secretHash', { secretHash })
      .getOne();
  }
}

interface ConsumedClientSecretRow {
  id: string;
  workspace_id: string;
  user_id: string | null;
  session: SessionConfig;
}
