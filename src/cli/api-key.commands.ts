import { InjectRepository } from '@nestjs/typeorm';
import { Command, CommandRunner, Option } from 'nest-commander';
import { Repository } from 'typeorm';
import { User } from '../account/user.entity';
import { ApiKeyService } from '../auth/api-key.service';
import { fail, parseNumber, printJson } from './cli-output';

@Command({
  name: 'apikey:create',
  description: 'Create an API key for a workspace (owned by its first user)',
})
export class ApiKeyCreateCommand extends CommandRunner {
  constructor(
    private readonly apiKeys: ApiKeyService,
    @InjectRepository(User) private readonly users: Repository<User>,
  ) {
    super();
  }

  async run(_parameters: string[], options: { workspace?: string; expiresInDays?: number }): Promise<void> {
    if (!options.workspace) fail('--workspace is required');
    const owner = await this.users.findOne({
      where: { activeWorkspaceId: options.workspace },
      order: { createdOn: 'ASC' },
    });
    if (!owner) fail(`workspace ${options.workspace} does not exist or has no user`);
    const created = await this.apiKeys.create(options.workspace, owner.id, {
      expiresInDays: options.expiresInDays,
    });
    printJson({
      workspaceId: options.workspace,
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
}

@Command({ name: 'apikey:revoke', description: 'Revoke an API key' })
export class ApiKeyRevokeCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeyService) {
    super();
  }

  async run(_parameters: string[], options: { key?: string }): Promise<void> {
    if (!options.key) fail('--key is required');
    const revoked = await this.apiKeys.revoke(options.key);
    if (!revoked) fail('no such API key');
    printJson({ revoked: true, apiKeyId: revoked.id, revokedOn: revoked.revokedOn.toISOString() });
  }

  @Option({ flags: '--key <apiKey>', description: 'The API key in clear' })
  parseKey(value: string): string {
    return value;
  }
}
