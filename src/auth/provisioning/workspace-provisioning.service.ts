import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { OPERATOR } from '../../audit/audit-log.service';
import { ApiKeyService } from '../api-key.service';
import { LedgerService } from '../../billing/ledger.service';
import { eurToMicro } from '../../common/money';
import { AccountConfig } from '../../account/account.config';
import { User } from '../../account/user.entity';
import { WorkspaceMember } from '../members/workspace-member.entity';
import { Workspace } from '../../account/workspace.entity';

export interface WorkspaceRequest {
  name: string;
  balanceEur?: number;
  freeTranscriptions?: number;
  lowBalanceThresholdEur?: number;
  email?: string;
  userName?: string;
  /** The first API key's label (shown in the dashboard's key list); empty when not given. */
  apiKeyName?: string;
  /** argon2id hash of the first user's password (dashboard sign-in); none: the user cannot sign in. */
  passwordHash?: string;
}

export interface ProvisionedWorkspace {
  workspaceId: string;
  userId: string;
  email: string;
  apiKey: string;
}

export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return `${base || 'workspace'}-${randomBytes(3).toString('hex')}`;
}

/** Creates a workspace with its first user and API key in one transaction (operators' CLI, demo setup, tests). */
@Injectable()
export class WorkspaceProvisioningService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly apiKeys: ApiKeyService,
    private readonly ledger: LedgerService,
    private readonly config: AccountConfig,
  ) {}

  async create(request: WorkspaceRequest): Promise<ProvisionedWorkspace> {
    return this.dataSource.transaction(async (tx) => {
      const { workspaceId, userId, email } = await this.provision(request, tx);
      const { apiKey } = await this.apiKeys.create(workspaceId, userId, {
        name: request.apiKeyName,
        manager: tx,
        // Provisioning is the operator's (the CLI's workspace:create, demo setup); sign-up makes no key.
        actor: OPERATOR,
      });
      return { workspaceId, userId, email, apiKey };
    });
  }

  /**
   * The demo workspace of the quick start and of compose's `demo` service, made once however often they run
   * (issue 35 item 1, issue 31: every run made one more funded workspace, and a second run's key and the printed
   * login named different workspaces). The demo user is found by email: when it exists, its workspace is the
   * demo's and a new key of that workspace is made only when `newKey` says so (a new password for an existing
   * user goes through UserPasswordService, which ends its sign-ins); the opening balance is paid once, at
   * creation. Under an advisory lock, so two runs at
   * once still leave one workspace.
   */
  async ensureDemo(
    request: WorkspaceRequest & { email: string; newKey: boolean },
  ): Promise<Omit<ProvisionedWorkspace, 'apiKey'> & { apiKey: string | null; created: boolean }> {
    return this.dataSource.transaction(async (tx) => {
      const email = request.email.toLowerCase();
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('demo-workspace:' || $1))`, [email]);
      const existing = await tx.getRepository(User).findOneBy({ email });
      if (existing && existing.activeWorkspaceId) {
        const apiKey = request.newKey
          ? (
              await this.apiKeys.create(existing.activeWorkspaceId, existing.id, {
                name: request.apiKeyName,
                manager: tx,
                actor: OPERATOR,
              })
            ).apiKey
          : null;
        return {
          workspaceId: existing.activeWorkspaceId,
          userId: existing.id,
          email,
          apiKey,
          created: false,
        };
      }
      if (existing) throw new Error(`the user ${email} exists without a workspace: not a demo user`);
      const { workspaceId, userId } = await this.provision({ ...request, email }, tx);
      const { apiKey } = await this.apiKeys.create(workspaceId, userId, {
        name: request.apiKeyName,
        manager: tx,
        actor: OPERATOR,
      });
      return { workspaceId, userId, email, apiKey, created: true };
    });
  }

  /** Self sign-up: the user signs in with a password and makes keys in the dashboard, none is made here. */
  async createWithoutApiKey(request: WorkspaceRequest): Promise<Omit<ProvisionedWorkspace, 'apiKey'>> {
    return this.dataSource.transaction((tx) => this.provision(request, tx));
  }

  private async provision(
    request: WorkspaceRequest,
    tx: EntityManager,
  ): Promise<Omit<ProvisionedWorkspace, 'apiKey'>> {
    const slug = slugify(request.name);
    const workspace = await tx.getRepository(Workspace).save(
      tx.getRepository(Workspace).create({
        name: request.name,
        slug,
        balanceMicro: 0,
        freeTranscriptionsRemaining: request.freeTranscriptions ?? this.config.DEFAULT_FREE_TRANSCRIPTIONS,
        lowBalanceThresholdMicro: eurToMicro(
          request.lowBalanceThresholdEur ?? this.config.DEFAULT_LOW_BALANCE_THRESHOLD_EUR,
        ),
        lowBalanceArmed: true,
        autoReloadEnabled: false,
        autoReloadThresholdMicro: null,
        autoReloadAmountMicro: null,
      }),
    );
    const email = (request.email ?? `owner@${slug}.example`).toLowerCase();
    const user = await tx.getRepository(User).save(
      tx.getRepository(User).create({
        email,
        name: request.userName ?? null,
        preferredLanguage: 'en',
        activeWorkspaceId: workspace.id,
        passwordHash: request.passwordHash ?? null,
      }),
    );
    // The one who makes a workspace owns it (src/common/principal/permission-table.ts).
    await tx
      .getRepository(WorkspaceMember)
      .insert({ workspaceId: workspace.id, userId: user.id, role: 'owner' });
    const balanceMicro = eurToMicro(request.balanceEur ?? 0);
    if (balanceMicro > 0) {
      await this.ledger.post(
        {
          workspaceId: workspace.id,
          kind: 'top-up',
          amountMicro: balanceMicro,
          description: 'Opening balance',
        },
        tx,
      );
    }
    return { workspaceId: workspace.id, userId: user.id, email };
  }
}
