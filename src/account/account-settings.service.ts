import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { eurToMicro, microToEur } from '../common/money';
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
  ) {}

  async get(workspaceId: string): Promise<AccountSettings> {
    const workspace = await this.dataSource.getRepository(Workspace).findOneBy({ id: workspaceId });
    if (!workspace) throw ProblemException.notFound('The workspace');
    return toView(workspace);
  }

  async update(workspaceId: string, change: UpdateAccountSettingsDto): Promise<AccountSettings> {
    if (change.lowBalanceThreshold !== undefined) {
      const thresholdMicro = eurToMicro(change.lowBalanceThreshold);
      await this.dataSource.transaction(async (tx) => {
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
      });
    }
    if (change.retention !== undefined) {
      await this.retention.update(workspaceId, {
        audioDays: change.retention.audioDays,
        transcriptDays: change.retention.transcriptDays,
      });
    }
    return this.get(workspaceId);
  }
}
