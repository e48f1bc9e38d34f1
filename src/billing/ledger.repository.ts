import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Workspace } from '../account/workspace.entity';
import { LedgerEntry } from './ledger-entry.entity';

/**
 * The workspace's account: its balance, its low-balance flag, its free transcriptions and the ledger entries
 * that move the balance. One style, as for transcriptions: TypeORM's query builder for reads and updates
 * (bigint columns come back as numbers through their transformer), `save` to insert an entry. Methods that take
 * an EntityManager run in the caller's transaction; locking ones need one.
 */
@Injectable()
export class LedgerRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** For reads that need no transaction but go through a port that takes a manager (the billing gate's). */
  outsideTransaction(): EntityManager {
    return this.dataSource.manager;
  }

  findWorkspace(
    workspaceId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Workspace | null> {
    return manager.createQueryBuilder(Workspace, 'w').where('w.id = :workspaceId', { workspaceId }).getOne();
  }

  /** The workspace row locked until the transaction ends: balance moves and reservations queue behind it. */
  lockWorkspace(tx: EntityManager, workspaceId: string): Promise<Workspace | null> {
    return tx
      .createQueryBuilder(Workspace, 'w')
      .where('w.id = :workspaceId', { workspaceId })
      .setLock('pessimistic_write')
      .getOne();
  }

  async writeBalance(
    tx: EntityManager,
    workspaceId: string,
    balance: Pick<Workspace, 'balanceMicro' | 'lowBalanceArmed'>,
  ): Promise<void> {
    await tx
      .createQueryBuilder()
      .update(Workspace)
      .set({ balanceMicro: balance.balanceMicro, lowBalanceArmed: balance.lowBalanceArmed })
      .where('id = :workspaceId', { workspaceId })
      .execute();
  }

  appendEntry(
    tx: EntityManager,
    entry: Pick<
      LedgerEntry,
      'workspaceId' | 'kind' | 'amountMicro' | 'balanceAfterMicro' | 'transcriptionId' | 'description'
    >,
  ): Promise<LedgerEntry> {
    const entries = tx.getRepository(LedgerEntry);
    return entries.save(entries.create(entry));
  }

  /** One free transcription fewer (the database refuses to go below zero). */
  async takeFreeTranscription(tx: EntityManager, workspaceId: string): Promise<void> {
    await this.moveFreeTranscriptions(tx, workspaceId, -1);
  }

  async giveBackFreeTranscription(tx: EntityManager, workspaceId: string): Promise<void> {
    await this.moveFreeTranscriptions(tx, workspaceId, 1);
  }

  private async moveFreeTranscriptions(tx: EntityManager, workspaceId: string, by: 1 | -1): Promise<void> {
    await tx
      .createQueryBuilder()
      .update(Workspace)
      .set({ freeTranscriptionsRemaining: () => `free_transcriptions_remaining + ${by}` })
      .where('id = :workspaceId', { workspaceId })
      .execute();
  }
}
