import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { ProblemException } from '../common/problem/problem.exception';
import { tiersInUsageBucket } from '../common/model-tier-catalogue';
import { microToEur } from '../common/money';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';
import type { Schema, SerializesTo } from '../openapi/contract-types';

export type BalanceSnapshot = Schema<'BalanceSnapshot'>;

export type Profile = SerializesTo<Schema<'Profile'>>;

export type UsageMonth = Schema<'UsageMonth'>;

export type Usage = Schema<'Usage'>;

interface UsageRow {
  month: string;
  standard_seconds: string | null;
  premium_seconds: string | null;
  standard_cost_micro: string | null;
  premium_cost_micro: string | null;
  count: string;
}

const round = (value: number, decimals: number): number => Number(value.toFixed(decimals));

@Injectable()
export class AccountService {
  constructor(
    @InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>,
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async balance(workspaceId: string): Promise<BalanceSnapshot> {
    const workspace = await this.workspace(workspaceId);
    return {
      balance: microToEur(workspace.balanceMicro),
      freeTranscriptionsRemaining: workspace.freeTranscriptionsRemaining,
      autoReloadEnabled: workspace.autoReloadEnabled,
      autoReloadThreshold:
        workspace.autoReloadThresholdMicro === null ? null : microToEur(workspace.autoReloadThresholdMicro),
      autoReloadAmount:
        workspace.autoReloadAmountMicro === null ? null : microToEur(workspace.autoReloadAmountMicro),
    };
  }

  async profile(workspaceId: string, userId: string | null): Promise<Profile> {
    if (userId === null) {
      throw new ProblemException(
        'forbidden',
        'This API key belongs to the workspace and has no user (its creator was deleted, or an operator created it without one), so there is no profile; the workspace balance is at GET /v1/account/balance.',
      );
    }
    const [workspace, user] = await Promise.all([
      this.workspace(workspaceId),
      this.users.findOne({ where: { id: userId } }),
    ]);
    if (!user)
      throw new ProblemException('user-not-found', 'The user behind this credential no longer exists.');
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      preferredLanguage: user.preferredLanguage,
      createdOn: user.createdOn,
      directory: {
        id: workspace.id,
        name: workspace.name,
        slug: workspace.slug,
        balance: microToEur(workspace.balanceMicro),
        freeTranscriptionsRemaining: workspace.freeTranscriptionsRemaining,
      },
    };
  }

  /** Completed transcriptions grouped by UTC month of completion, newest month first, empty months as zeros. */
  async usage(workspaceId: string, monthCount: number, now = new Date()): Promise<Usage> {
    const firstMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (monthCount - 1), 1));
    const rows: UsageRow[] = await this.dataSource.query(
      `SELECT to_char(date_trunc('month', completed_at AT TIME ZONE 'UTC'), 'YYYY-MM') AS month,
              SUM(duration) FILTER (WHERE model = ANY($3)) AS standard_seconds,
              SUM(duration) FILTER (WHERE model = ANY($4)) AS premium_seconds,
              SUM(cost_micro) FILTER (WHERE model = ANY($3)) AS standard_cost_micro,
              SUM(cost_micro) FILTER (WHERE model = ANY($4)) AS premium_cost_micro,
              COUNT(*) AS count
         FROM transcriptions
        WHERE workspace_id = $1 AND status = 'completed' AND completed_at >= $2
        GROUP BY 1`,
      [workspaceId, firstMonth, tiersInUsageBucket('standard'), tiersInUsageBucket('premium')],
    );
    const byMonth = new Map(rows.map((row) => [row.month, row]));
    const months: UsageMonth[] = [];
    for (let offset = 0; offset < monthCount; offset++) {
      const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - offset, 1));
      const month = date.toISOString().slice(0, 7);
      const row = byMonth.get(month);
      months.push({
        month,
        standardMinutes: round(Number(row?.standard_seconds ?? 0) / 60, 4),
        premiumMinutes: round(Number(row?.premium_seconds ?? 0) / 60, 4),
        standardCost: microToEur(Number(row?.standard_cost_micro ?? 0)),
        premiumCost: microToEur(Number(row?.premium_cost_micro ?? 0)),
        count: Number(row?.count ?? 0),
      });
    }
    const totalSeconds = rows.reduce(
      (sum, row) => sum + Number(row.standard_seconds ?? 0) + Number(row.premium_seconds ?? 0),
      0,
    );
    const totalCostMicro = rows.reduce(
      (sum, row) => sum + Number(row.standard_cost_micro ?? 0) + Number(row.premium_cost_micro ?? 0),
      0,
    );
    return {
      months,
      summary: {
        totalTranscriptions: months.reduce((sum, month) => sum + month.count, 0),
        totalMinutes: round(totalSeconds / 60, 4),
        totalCost: microToEur(totalCostMicro),
      },
    };
  }

  private async workspace(workspaceId: string): Promise<Workspace> {
    const workspace = await this.workspaces.findOne({ where: { id: workspaceId } });
    if (!workspace) throw ProblemException.notFound('The workspace');
    return workspace;
  }
}
