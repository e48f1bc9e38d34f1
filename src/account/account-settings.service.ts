import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { actorOf, AuditLog } from '../audit/audit-log.service';
import { eurToMicro, microToEur } from '../common/money';
import type { Principal } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';
import { RetentionSettingsService } from './retention-settings.service';
import { UpdateAccountSettingsDto } from './account-settings.dto';
import { Workspace } from './workspace.entity';
import type { Schema } from '../openapi/contract-types';

export type AccountSettings = Schema<'AccountSettings'>;

function toView(workspace: Workspace): AccountSettings {
  return {
    lowBalanceThreshold: microToEur(workspace.lowBalanceThresholdMicro),
    retention: {
      audioDays: workspace.audioRetentionDays,
      transcriptDays: workspace.transcriptRetentionDays,
    },
  };
}

/** The dashboard's workspace settings; retention rules stay in RetentionSettingsService. */
@Injectable()
export class AccountSettingsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly retention: RetentionSettingsService,
    private readonly audit: AuditLog,
  ) {}

  async get(workspaceId: string): Promise<AccountSettings> {
    const workspace = await this.dataSource.getRepository(Workspace).findOneBy({ id: workspaceId });
    if (!workspace) throw ProblemException.notFound('The workspace');
    return toView(workspace);
  }

  /**
   * One transaction for the whole change, with an audit event per setting it changes
   * (`billing.low_balance_threshold_changed`, `workspace.retention_changed`): all of it or none.
   */
  async update(principal: Principal, change: UpdateAccountSettingsDto): Promise<AccountSettings> {
    const workspaceId = principal.workspaceId;
    await this.dataSource.transaction(async (tx) => {
      if (change.lowBalanceThreshold !== undefined) {
        const thresholdMicro = eurToMicro(change.lowBalanceThreshold);
        // Locked like a ledger posting, so a charge running now sees either the old or the new threshold.
        const workspace = await tx
          .getRepository(Workspace)
          .findOne({ where: { id: workspaceId }, lock: { mode: 'pessimistic_write' } });
        if (!workspace) throw ProblemException.notFound('The workspace');
        // Armed when the balance is at or above the new threshold: the next fall below it sends balance.low.
        await tx.getRepository(Workspace).update(workspaceId, {
          lowBalanceThresholdMicro: thresholdMicro,
          lowBalanceArmed: workspace.balanceMicro >= thresholdMicro,
        });
        if (workspace.lowBalanceThresholdMicro !== thresholdMicro) {
          await this.audit.record(tx, {
            principal,
            action: 'billing.low_balance_threshold_changed',
            target: { type: 'workspace', id: workspaceId },
            before: { lowBalanceThreshold: microToEur(workspace.lowBalanceThresholdMicro) },
            after: { lowBalanceThreshold: microToEur(thresholdMicro) },
          });
        }
      }
      if (change.retention !== undefined) {
        await this.retention.update(
          workspaceId,
          { audioDays: change.retention.audioDays, transcriptDays: change.retention.transcriptDays },
          actorOf(principal),
          tx,
        );
      }
    });
    return this.get(workspaceId);
  }
}
