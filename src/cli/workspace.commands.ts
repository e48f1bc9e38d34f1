import { Command, CommandRunner, Option } from 'nest-commander';
import { WorkspaceProvisioningService } from '../auth/provisioning/workspace-provisioning.service';
import { hashPassword, passwordProblem } from '../auth/session/password-hasher';
import { ProblemException } from '../common/problem/problem.exception';
import { RetentionSettingsService } from '../account/retention-settings.service';
import { OPERATOR } from '../audit/audit-log.service';
import { fail, parseNumber, printJson } from './cli-output';
import { readPasswordFromStdin } from './password-input';

interface WorkspaceCreateOptions {
  name?: string;
  balance?: number;
  free?: number;
  lowBalanceThreshold?: number;
  email?: string;
  keyName?: string;
  password?: string;
  passwordStdin?: boolean;
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
    if (options.password !== undefined && options.passwordStdin) {
      fail('give --password or --password-stdin, not both');
    }
    const password = options.passwordStdin ? await readPasswordFromStdin() : options.password;
    const problem = password === undefined ? null : passwordProblem(password);
    if (problem) fail(problem);
    const created = await this.provisioning.create({
      name: options.name,
      balanceEur: options.balance,
      freeTranscriptions: options.free,
      lowBalanceThresholdEur: options.lowBalanceThreshold,
      email: options.email,
      apiKeyName: options.keyName,
      passwordHash: password === undefined ? undefined : await hashPassword(password),
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

  @Option({ flags: '--key-name <name>', description: 'Label of the first API key (dashboard key list)' })
  parseKeyName(value: string): string {
    return value;
  }

  @Option({
    flags: '--password <password>',
    description:
      'Dashboard password of the first user (visible in the process list: prefer --password-stdin)',
  })
  parsePassword(value: string): string {
    return value;
  }

  @Option({ flags: '--password-stdin', description: 'Read the first user’s password from standard input' })
  parsePasswordStdin(): boolean {
    return true;
  }
}

interface WorkspaceRetentionOptions {
  workspace?: string;
  audioDays?: number;
  transcriptDays?: number;
  clear?: boolean;
}

@Command({
  name: 'workspace:retention',
  description:
    "Set how many days a workspace keeps finished jobs' audio and completed transcripts (--clear: keep them)",
})
export class WorkspaceRetentionCommand extends CommandRunner {
  constructor(private readonly retention: RetentionSettingsService) {
    super();
  }

  async run(_parameters: string[], options: WorkspaceRetentionOptions): Promise<void> {
    if (!options.workspace) fail('--workspace is required');
    const setsDays = options.audioDays !== undefined || options.transcriptDays !== undefined;
    if (options.clear && setsDays) fail('--clear cannot be combined with --audio-days or --transcript-days');
    if (!options.clear && !setsDays) fail('give --audio-days, --transcript-days or --clear');
    try {
      const settings = await this.retention.update(
        options.workspace,
        options.clear
          ? { audioDays: null, transcriptDays: null }
          : { audioDays: options.audioDays, transcriptDays: options.transcriptDays },
        OPERATOR,
      );
      printJson(settings);
    } catch (error) {
      if (error instanceof ProblemException) fail(error.detail);
      throw error;
    }
  }

  @Option({ flags: '--workspace <id>', description: 'Workspace id' })
  parseWorkspace(value: string): string {
    return value;
  }

  @Option({ flags: '--audio-days <days>', description: 'Delete audio this many days after the job finished' })
  parseAudioDays(value: string): number {
    return wholeDays('--audio-days', value);
  }

  @Option({
    flags: '--transcript-days <days>',
    description: 'Delete the transcript text this many days after completion',
  })
  parseTranscriptDays(value: string): number {
    return wholeDays('--transcript-days', value);
  }

  @Option({ flags: '--clear', description: 'Keep audio and transcripts (no retention, the default)' })
  parseClear(): boolean {
    return true;
  }
}

function wholeDays(flag: string, value: string): number {
  const days = parseNumber(flag, value);
  if (!Number.isInteger(days) || days < 0) fail(`${flag} must be a whole number of days ≥ 0`);
  return days;
}
