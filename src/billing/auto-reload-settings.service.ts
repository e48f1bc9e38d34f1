import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Workspace } from '../account/workspace.entity';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { eurToMicro, microToEur } from '../common/money';
import { ProblemException } from '../common/problem/problem.exception';

export interface AutoReloadChange {
  enabled: boolean;
  thresholdEur?: number;
  amountEur?: number;
}

/**
 * Auto-reload settings of a workspace. Stored and shown in the balance snapshot only: no payment provider
 * exists, so nothing ever reloads a balance automatically.
 */
@Injectable()
export class AutoReloadSettingsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
  ) {}

  /** The change and its audit event (`billing.auto_reload_changed`, before and after) commit together. */
  async update(workspaceId: string, change: AutoReloadChange, actor: AuditActor): Promise<void> {
    if (change.thresholdEur !== undefined && !(change.thresholdEur >= 0)) {
      throw ProblemException.field('threshold', 'threshold must be a EUR amount ≥ 0');
    }
    if (change.amountEur !== undefined && !(change.amountEur > 0)) {
      throw ProblemException.field('amount', 'amount must be a EUR amount > 0');
    }
    await this.dataSource.transaction(async (tx) => {
      const workspaces = tx.getRepository(Workspace);
      const workspace = await workspaces.findOne({
        where: { id: workspaceId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!workspace) throw ProblemException.notFound('The workspace');
      const threshold =
        change.thresholdEur === undefined
          ? workspace.autoReloadThresholdMicro
          : eurToMicro(change.thresholdEur);
      const amount =
        change.amountEur === undefined ? workspace.autoReloadAmountMicro : eurToMicro(change.amountEur);
      if (change.enabled && (threshold === null || amount === null)) {
        throw ProblemException.validation(
          {
            formErrors: ['enabling auto-reload needs a threshold and an amount (given now or stored before)'],
          },
          'Enabling auto-reload needs a threshold and an amount.',
        );
      }
      await workspaces.update(workspace.id, {
        autoReloadEnabled: change.enabled,
        autoReloadThresholdMicro: threshold,
        autoReloadAmountMicro: amount,
      });
      await this.audit.record(tx, {
        actor,
        workspaceId: workspace.id,
        action: 'billing.auto_reload_changed',
        target: { type: 'workspace', id: workspace.id },
        before: autoReloadFacts(
          workspace.autoReloadEnabled,
          workspace.autoReloadThresholdMicro,
          workspace.autoReloadAmountMicro,
        ),
        after: autoReloadFacts(change.enabled, threshold, amount),
      });
    });
  }
}

function autoReloadFacts(enabled: boolean, thresholdMicro: number | null, amountMicro: number | null) {
  return {
    enabled,
    threshold: thresholdMicro === null ? null : microToEur(thresholdMicro),
    amount: amountMicro === null ? null : microToEur(amountMicro),
  };
}
