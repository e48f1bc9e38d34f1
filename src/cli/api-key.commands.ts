import { InjectRepository } from '@nestjs/typeorm';
import { Command, CommandRunner, Option } from 'nest-commander';
import { Repository } from 'typeorm';
import { User } from '../account/user.entity';
import { Workspace } from '../account/workspace.entity';
import { OPERATOR } from '../audit/audit-log.service';
import { ApiKeyService } from '../auth/api-key.service';
import { isUuid } from '../common/http/resource-id.pipe';
import { fail, parseNumber, printJson } from './cli-output';

@Command({
  name: 'apikey:create',
  description:
    'Create an API key for a workspace: shown as its first user in profiles, or with no user (--without-user, or when the workspace has no user left)',
})
export class ApiKeyCreateCommand extends CommandRunner {
  constructor(
    private readonly apiKeys: ApiKeyService,
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>,
  ) {
    super();
  }

  async run(
    _parameters: string[],
    options: { workspace?: string; expiresInDays?: number; withoutUser?: boolean },
  ): Promise<void> {
    if (!options.workspace) fail('--workspace is required');
    if (!isUuid(options.workspace) || !(await this.workspaces.existsBy({ id: options.workspace }))) {
      fail(`workspace ${options.workspace} does not exist`);
    }
    // The key belongs to the workspace whoever it names; the user only decides what the profile shows.
    const owner = options.withoutUser
      ? null
      : await this.users.findOne({
          where: { activeWorkspaceId: options.workspace },
          order: { createdOn: 'ASC' },
        });
    const created = await this.apiKeys.create(options.workspace, owner?.id ?? null, {
      expiresInDays: options.expiresInDays,
      actor: OPERATOR,
    });
    printJson({
      workspaceId: options.workspace,
      userId: owner?.id ?? null,
      apiKeyId: created.id,
      apiKey: created.apiKey,
      expiresOn: created.expiresOn?.toISOString() ?? null,
    });
  }

  @Option({ flags: '--workspace <id>', description: 'Workspace id' })
  parseWorkspace(value: string): string {
    return value;
  }

  @Option({ flags: '--expires-in-days <days>', description: 'Optional lifetime of the key' })
  parseExpiresInDays(value: string): number {
    return parseNumber('--expires-in-days', value);
  }

  @Option({
    flags: '--without-user',
    description: 'A key of the workspace alone (its profile answers 403: there is no user to show)',
  })
  parseWithoutUser(): boolean {
    return true;
  }
}

@Command({ name: 'apikey:revoke', description: 'Revoke an API key' })
export class ApiKeyRevokeCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeyService) {
    super();
  }

  async run(_parameters: string[], options: { key?: string }): Promise<void> {
    if (!options.key) fail('--key is required');
    const revoked = await this.apiKeys.revoke(options.key, OPERATOR);
    if (!revoked) fail('no such API key');
    printJson({ revoked: true, apiKeyId: revoked.id, revokedOn: revoked.revokedOn.toISOString() });
  }

  @Option({ flags: '--key <apiKey>', description: 'The API key in clear' })
  parseKey(value: string): string {
    return value;
  }
}
