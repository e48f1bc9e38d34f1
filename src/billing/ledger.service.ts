import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Workspace } from '../account/workspace.entity';
import { ProblemException } from '../common/problem/problem.exception';
import { LedgerEntry, LedgerEntryKind } from './ledger-entry.entity';

export interface LedgerPosting {
  workspaceId: string;
  kind: LedgerEntryKind;
  /** Signed micro-EUR: positive credits, negative debits. */
  amountMicro: number;
  transcriptionId?: string | null;
  description?: string | null;
}

/**
 * The only writer of workspace balances: each posting locks the workspace row, moves the balance and
 * appends the ledger entry in one transaction, so the balance always equals the sum of the ledger.
 */
@Injectable()
export class LedgerService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async post(
    posting: LedgerPosting,
    manager?: EntityManager,
  ): Promise<{ entry: LedgerEntry; workspace: Workspace }> {
    if (!Number.isSafeInteger(posting.amountMicro)) throw new Error('Ledger amounts are whole micro-EUR');
    const run = async (tx: EntityManager) => {
      const workspace = await tx.getRepository(Workspace).findOne({
        where: { id: posting.workspaceId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!workspace) throw ProblemException.notFound('The workspace');
      const before = workspace.balanceMicro;
      workspace.balanceMicro = before + posting.amountMicro;
      if (
        before < workspace.lowBalanceThresholdMicro &&
        workspace.balanceMicro >= workspace.lowBalanceThresholdMicro
      ) {
        workspace.lowBalanceArmed = true;
      }
      await tx.getRepository(Workspace).update(workspace.id, {
        balanceMicro: workspace.balanceMicro,
        lowBalanceArmed: workspace.lowBalanceArmed,
      });
      const entry = await tx.getRepository(LedgerEntry).save(
        tx.getRepository(LedgerEntry).create({
          workspaceId: workspace.id,
          kind: posting.kind,
          amountMicro: posting.amountMicro,
          balanceAfterMicro: workspace.balanceMicro,
          transcriptionId: posting.transcriptionId ?? null,
          description: posting.description ?? null,
        }),
      );
      return { entry, workspace };
    };
    return manager ? run(manager) : this.dataSource.transaction(run);
  }
}
