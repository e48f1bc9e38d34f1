import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { Workspace } from './workspace.entity';
import { ProblemException } from '../common/problem/problem.exception';

export interface RetentionSettings {
  workspaceId: string;
  /** Days a finished job's audio is kept after completion/failure; null keeps it. */
  audioRetentionDays: number | null;
  /** Days a completed job's text is kept after completion; null keeps it. */
  transcriptRetentionDays: number | null;
}

/** A change: a number sets the days, null clears it (kept forever), undefined leaves it as it is. */
export interface RetentionChange {
  audioDays?: number | null;
  transcriptDays?: number | null;
}

/** The one place a workspace's retention is read and changed (the CLI and the dashboard's settings). */
@Injectable()
export class RetentionSettingsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Applies the change with its audit event (`workspace.retention_changed`, before and after) in one
   * transaction: the caller's when given (the dashboard's settings change several things at once), else one
   * of its own. A change that changes nothing writes no event.
   */
  async update(
    workspaceId: string,
    change: RetentionChange,
    actor: AuditActor,
    manager?: EntityManager,
  ): Promise<RetentionSettings> {
    for (const [name, days] of Object.entries(change)) {
      if (days !== undefined && days !== null && (!Number.isInteger(days) || days < 0)) {
        throw ProblemException.field(
          name,
          `${name} must be a whole number of days ≥ 0 (got ${String(days)}).`,
        );
      }
    }
    const run = async (tx: EntityManager): Promise<RetentionSettings> => {
      const workspace = isUUID(workspaceId)
        ? await tx
            .getRepository(Workspace)
            .findOne({ where: { id: workspaceId }, lock: { mode: 'pessimistic_write' } })
        : null;
      if (!workspace) throw ProblemException.notFound('The workspace');
      const before = {
        audioDays: workspace.audioRetentionDays,
        transcriptDays: workspace.transcriptRetentionDays,
      };
      const after = {
        audioDays: change.audioDays === undefined ? before.audioDays : change.audioDays,
        transcriptDays: change.transcriptDays === undefined ? before.transcriptDays : change.transcriptDays,
      };
      if (after.audioDays !== before.audioDays || after.transcriptDays !== before.transcriptDays) {
        await tx
          .getRepository(Workspace)
          .update(
            { id: workspaceId },
            { audioRetentionDays: after.audioDays, transcriptRetentionDays: after.transcriptDays },
          );
        await this.audit.record(tx, {
          actor,
          workspaceId,
          action: 'workspace.retention_changed',
          target: { type: 'workspace', id: workspaceId },
          before,
          after,
        });
      }
      return {
        workspaceId,
        audioRetentionDays: after.audioDays,
        transcriptRetentionDays: after.transcriptDays,
      };
    };
    return manager ? run(manager) : this.dataSource.transaction(run);
  }
}
