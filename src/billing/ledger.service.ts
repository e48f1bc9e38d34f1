import { Injectable, Optional } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Workspace } from '../account/workspace.entity';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { microToEur } from '../common/money';
import { ProblemException } from '../common/problem/problem.exception';
import { WebhookEventsOutbox } from '../webhooks/events/webhook-events-outbox.service';
import { LedgerEntry, LedgerEntryKind } from './ledger-entry.entity';
import { LedgerRepository } from './ledger.repository';
import { MetricsService } from '../metrics/metrics.service';

export interface LedgerPosting {
  workspaceId: string;
  kind: LedgerEntryKind;
  /** Signed micro-EUR: positive credits, negative debits. */
  amountMicro: number;
  transcriptionId?: string | null;
  description?: string | null;
}

/** balance.low fires on a move from at/above the threshold to below it, only while armed. */
export function crossesLowBalanceThreshold(
  beforeMicro: number,
  afterMicro: number,
  thresholdMicro: number,
  armed: boolean,
): boolean {
  return armed && beforeMicro >= thresholdMicro && afterMicro < thresholdMicro;
}

/**
 * A balance strictly above the threshold re-arms balance.low (it "must recover above the threshold",
 * docs/billing.md); landing exactly on it does not.
 */
export function recoversLowBalanceThreshold(afterMicro: number, thresholdMicro: number): boolean {
  return afterMicro > thresholdMicro;
}

/**
 * The only writer of workspace balances: each posting locks the workspace row, moves the balance and
 * appends the ledger entry in one transaction, so the balance always equals the sum of the ledger.
 * A downward crossing of the low-balance threshold records a balance.low outbox event in that same
 * transaction and disarms it; a rise back strictly above the threshold re-arms it.
 */
@Injectable()
export class LedgerService {
  constructor(
    private readonly accounts: LedgerRepository,
    private readonly webhookEvents: WebhookEventsOutbox,
    private readonly audit: AuditLog,
    // Optional: the CLI's and some tests' contexts have no metrics module.
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  /**
   * A top-up by someone (the operator's CLI today; a payment provider's callback later): the posting and its
   * audit event (`billing.balance_topped_up`) commit together.
   */
  topUp(
    workspaceId: string,
    amountMicro: number,
    description: string,
    actor: AuditActor,
  ): Promise<{ entry: LedgerEntry; workspace: Workspace }> {
    return this.accounts.transaction(async (tx) => {
      const posted = await this.post({ workspaceId, kind: 'top-up', amountMicro, description }, tx);
      await this.audit.record(tx, {
        actor,
        workspaceId,
        action: 'billing.balance_topped_up',
        target: { type: 'workspace', id: workspaceId },
        details: {
          amount: microToEur(amountMicro),
          balanceAfter: microToEur(posted.workspace.balanceMicro),
          ledgerEntryId: posted.entry.id,
        },
      });
      return posted;
    });
  }

  async post(
    posting: LedgerPosting,
    manager?: EntityManager,
  ): Promise<{ entry: LedgerEntry; workspace: Workspace }> {
    if (!Number.isSafeInteger(posting.amountMicro)) throw new Error('Ledger amounts are whole micro-EUR');
    const run = async (tx: EntityManager) => {
      const workspace = await this.accounts.lockWorkspace(tx, posting.workspaceId);
      if (!workspace) throw ProblemException.notFound('The workspace');
      const before = workspace.balanceMicro;
      const threshold = workspace.lowBalanceThresholdMicro;
      workspace.balanceMicro = before + posting.amountMicro;
      const crossedDown = crossesLowBalanceThreshold(
        before,
        workspace.balanceMicro,
        threshold,
        workspace.lowBalanceArmed,
      );
      if (crossedDown) workspace.lowBalanceArmed = false;
      else if (recoversLowBalanceThreshold(workspace.balanceMicro, threshold)) {
        workspace.lowBalanceArmed = true;
      }
      await this.accounts.writeBalance(tx, workspace.id, workspace);
      const entry = await this.accounts.appendEntry(tx, {
        workspaceId: workspace.id,
        kind: posting.kind,
        amountMicro: posting.amountMicro,
        balanceAfterMicro: workspace.balanceMicro,
        transcriptionId: posting.transcriptionId ?? null,
        description: posting.description ?? null,
      });
      if (crossedDown) {
        // The ledger entry identifies the crossing; a replayed posting cannot fire twice.
        await this.webhookEvents.record(tx, {
          type: 'balance.low',
          workspaceId: workspace.id,
          ledgerEntryId: entry.id,
          data: {
            balance: microToEur(workspace.balanceMicro),
            threshold: microToEur(threshold),
            currency: 'EUR',
          },
        });
      }
      return { entry, workspace };
    };
    const posted = manager ? run(manager) : this.accounts.transaction(run);
    return posted.catch((error: unknown) => {
      // A refusal (unknown workspace) is the caller's; anything else is an error an operator is paged for.
      if (!(error instanceof ProblemException)) this.metrics?.recordLedgerError();
      throw error;
    });
  }
}
