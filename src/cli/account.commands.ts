import { InjectRepository } from '@nestjs/typeorm';
import { Command, CommandRunner, Option } from 'nest-commander';
import { Repository } from 'typeorm';
import { User } from '../account/user.entity';
import { OPERATOR } from '../audit/audit-log.service';
import { TokenService } from '../auth/token.service';
import { LedgerService } from '../billing/ledger.service';
import { eurToMicro, microToEur } from '../common/money';
import { fail, parseNumber, printJson } from './cli-output';

@Command({ name: 'balance:topup', description: 'Top up a workspace balance through the ledger' })
export class BalanceTopUpCommand extends CommandRunner {
  constructor(private readonly ledger: LedgerService) {
    super();
  }

  async run(_parameters: string[], options: { workspace?: string; amount?: number }): Promise<void> {
    if (!options.workspace) fail('--workspace is required');
    if (options.amount === undefined || options.amount <= 0) fail('--amount must be a positive EUR amount');
    const { workspace } = await this.ledger.topUp(
      options.workspace,
      eurToMicro(options.amount),
      'Top-up (CLI)',
      OPERATOR,
    );
    printJson({ balance: microToEur(workspace.balanceMicro) });
  }

  @Option({ flags: '--workspace <id>', description: 'Workspace id' })
  parseWorkspace(value: string): string {
    return value;
  }

  @Option({ flags: '--amount <eur>', description: 'Amount in EUR' })
  parseAmount(value: string): number {
    return parseNumber('--amount', value);
  }
}

@Command({
  name: 'user:delete',
  description:
    'Delete a user: their sessions (JWTs) end; the API keys they created stay with the workspace and keep working',
})
export class UserDeleteCommand extends CommandRunner {
  constructor(@InjectRepository(User) private readonly users: Repository<User>) {
    super();
  }

  async run(_parameters: string[], options: { user?: string }): Promise<void> {
    if (!options.user) fail('--user is required');
    const result = await this.users.delete({ id: options.user });
    if (!result.affected) fail(`user ${options.user} does not exist`);
    printJson({ deleted: true, userId: options.user });
  }

  @Option({ flags: '--user <id>', description: 'User id' })
  parseUser(value: string): string {
    return value;
  }
}

@Command({ name: 'token:issue', description: 'Issue an HS256 JWT for a user (front-end sessions, tests)' })
export class TokenIssueCommand extends CommandRunner {
  constructor(private readonly tokens: TokenService) {
    super();
  }

  async run(_parameters: string[], options: { user?: string; ttl?: number }): Promise<void> {
    if (!options.user) fail('--user is required');
    printJson(this.tokens.issue(options.user, options.ttl ?? 3600));
  }

  @Option({ flags: '--user <id>', description: 'User id (the token subject)' })
  parseUser(value: string): string {
    return value;
  }

  @Option({ flags: '--ttl <seconds>', description: 'Lifetime in seconds (default 3600)' })
  parseTtl(value: string): number {
    return parseNumber('--ttl', value);
  }
}
