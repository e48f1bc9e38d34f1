import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { Repository } from 'typeorm';
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

/** The one place a workspace's retention is read and changed (CLI now, the dashboard later). */
@Injectable()
export class RetentionSettingsService {
  constructor(@InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>) {}

  async update(workspaceId: string, change: RetentionChange): Promise<RetentionSettings> {
    for (const [name, days] of Object.entries(change)) {
      if (days !== undefined && days !== null && (!Number.isInteger(days) || days < 0)) {
        throw ProblemException.field(
          name,
          `${name} must be a whole number of days ≥ 0 (got ${String(days)}).`,
        );
      }
    }
    const workspace = isUUID(workspaceId) ? await this.workspaces.findOneBy({ id: workspaceId }) : null;
    if (!workspace) throw ProblemException.notFound('The workspace');
    if (change.audioDays !== undefined) workspace.audioRetentionDays = change.audioDays;
    if (change.transcriptDays !== undefined) workspace.transcriptRetentionDays = change.transcriptDays;
    await this.workspaces.update(
      { id: workspaceId },
      {
        audioRetentionDays: workspace.audioRetentionDays,
        transcriptRetentionDays: workspace.transcriptRetentionDays,
      },
    );
    return {
      workspaceId,
      audioRetentionDays: workspace.audioRetentionDays,
      transcriptRetentionDays: workspace.transcriptRetentionDays,
    };
  }
}
