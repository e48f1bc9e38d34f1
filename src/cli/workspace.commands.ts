import { Command, CommandRunner, Option } from 'nest-commander';
import { WorkspaceProvisioningService } from '../account/workspace-provisioning.service';
import { fail, parseNumber, printJson } from './cli-output';

interface WorkspaceCreateOptions {
  name?: string;
  balance?: number;
  free?: number;
  lowBalanceThreshold?: number;
  email?: string;
}

@Command({ name: 'workspace:create', description: 'Create a workspace with its first user and API key' })
export class WorkspaceCreateCommand extends CommandRunner {
  constructor(private readonly provisioning: WorkspaceProvisioningService) {
    super();
  }

  async run(_parameters: string[], options: WorkspaceCreateOptions): Promise<void> {
    if (!options.name) fail('--name is required');
    if (options.free !== undefined && (!Number.isInteger(options.free) || options.free < 0)) {
      fail('--free must be a whole number ≥ 0');
    }
    if (options.balance !== undefined && options.balance < 0) fail('--balance must be ≥ 0');
    const created = await this.provisioning.create({
      name: options.name,
      balanceEur: options.balance,
      freeTranscriptions: options.free,
      lowBalanceThresholdEur: options.lowBalanceThreshold,
      email: options.email,
    });
    printJson(created);
  }

  @Option({ flags: '--name <name>', description: 'Workspace name' })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--balance <eur>', description: 'Opening balance in EUR (a ledger top-up)' })
  parseBalance(value: string): number {
    return parseNumber('--balance', value);
  }

  @Option({
    flags: '--free <count>',
    description: 'Free transcriptions (default DEFAULT_FREE_TRANSCRIPTIONS)',
  })
  parseFree(value: string): number {
    return parseNumber('--free', value);
  }

  @Option({ flags: '--low-balance-threshold <eur>', description: 'balance.low threshold in EUR' })
  parseLowBalanceThreshold(value: string): number {
    return parseNumber('--low-balance-threshold', value);
  }

  @Option({ flags: '--email <email>', description: 'Email of the first user' })
  parseEmail(value: string): string {
    return value;
  }
}
