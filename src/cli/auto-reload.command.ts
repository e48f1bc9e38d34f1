import { Command, CommandRunner, Option } from 'nest-commander';
import { AccountService } from '../account/account.service';
import { OPERATOR } from '../audit/audit-log.service';
import { AutoReloadSettingsService } from '../billing/auto-reload-settings.service';
import { ProblemException } from '../common/problem/problem.exception';
import { fail, parseNumber, printJson } from './cli-output';

interface AutoReloadOptions {
  workspace?: string;
  enabled?: boolean;
  threshold?: number;
  amount?: number;
}

@Command({
  name: 'workspace:auto-reload',
  description:
    'Store the auto-reload settings of a workspace (shown in the balance; no payment provider runs them)',
})
export class AutoReloadCommand extends CommandRunner {
  constructor(
    private readonly settings: AutoReloadSettingsService,
    private readonly account: AccountService,
  ) {
    super();
  }

  async run(_parameters: string[], options: AutoReloadOptions): Promise<void> {
    if (!options.workspace) fail('--workspace is required');
    if (options.enabled === undefined) fail('--enabled true|false is required');
    try {
      await this.settings.update(
        options.workspace,
        {
          enabled: options.enabled,
          thresholdEur: options.threshold,
          amountEur: options.amount,
        },
        OPERATOR,
      );
    } catch (error) {
      if (error instanceof ProblemException) fail(error.detail);
      throw error;
    }
    printJson(await this.account.balance(options.workspace));
  }

  @Option({ flags: '--workspace <id>', description: 'Workspace id' })
  parseWorkspace(value: string): string {
    return value;
  }

  @Option({ flags: '--enabled <true|false>', description: 'Turn auto-reload on or off' })
  parseEnabled(value: string): boolean {
    if (value === 'true') return true;
    if (value === 'false') return false;
    fail(`--enabled must be true or false, got ${JSON.stringify(value)}`);
  }

  @Option({ flags: '--threshold <eur>', description: 'Reload when the balance falls below this (EUR)' })
  parseThreshold(value: string): number {
    return parseNumber('--threshold', value);
  }

  @Option({ flags: '--amount <eur>', description: 'Amount to reload (EUR)' })
  parseAmount(value: string): number {
    return parseNumber('--amount', value);
  }
}
