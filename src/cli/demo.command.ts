import { Command, CommandRunner, Option } from 'nest-commander';
import { WorkspaceProvisioningService } from '../auth/provisioning/workspace-provisioning.service';
import { hashPassword, passwordProblem } from '../auth/session/password-hasher';
import { UserPasswordService } from '../auth/session/user-password.service';
import { fail, parseNumber, printJson } from './cli-output';
import { readPasswordFromStdin } from './password-input';

interface DemoEnsureOptions {
  email?: string;
  name?: string;
  balance?: number;
  free?: number;
  keyName?: string;
  passwordStdin?: boolean;
  keyOnlyIfCreated?: boolean;
}

/**
 * The demo workspace of the quick start (scripts/quickstart.sh) and of compose's `demo` service: made on the
 * first run, found by its user's email on every later one (WorkspaceProvisioningService.ensureDemo). Prints
 * `{workspaceId, userId, email, apiKey, created}`; `apiKey` is a new key of that one workspace, or null with
 * --key-only-if-created on a later run (compose: a key in the logs at every start would pile up keys).
 */
@Command({
  name: 'demo:ensure',
  description:
    'Create the demo workspace, its user and a key once; later runs reuse them (a new key, a new password from stdin)',
})
export class DemoEnsureCommand extends CommandRunner {
  constructor(
    private readonly provisioning: WorkspaceProvisioningService,
    private readonly passwords: UserPasswordService,
  ) {
    super();
  }

  async run(_parameters: string[], options: DemoEnsureOptions): Promise<void> {
    if (!options.email) fail('--email is required');
    if (options.balance !== undefined && options.balance < 0) fail('--balance must be ≥ 0');
    if (options.free !== undefined && (!Number.isInteger(options.free) || options.free < 0)) {
      fail('--free must be a whole number ≥ 0');
    }
    const password = options.passwordStdin ? await readPasswordFromStdin() : undefined;
    const problem = password === undefined ? null : passwordProblem(password);
    if (problem) fail(problem);
    const demo = await this.provisioning.ensureDemo({
      name: options.name ?? 'Demo workspace',
      email: options.email,
      balanceEur: options.balance,
      freeTranscriptions: options.free,
      apiKeyName: options.keyName,
      passwordHash: password === undefined ? undefined : await hashPassword(password),
      newKey: !options.keyOnlyIfCreated,
    });
    // An existing demo user's new password ends its sign-ins, like user:set-password.
    if (!demo.created && password !== undefined) await this.passwords.setPassword(demo.email, password);
    printJson(demo);
  }

  @Option({
    flags: '--email <email>',
    description: 'Email of the demo user (what makes the demo the same one)',
  })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--name <name>', description: 'Workspace name at creation (default "Demo workspace")' })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--balance <eur>', description: 'Opening balance in EUR, paid once at creation' })
  parseBalance(value: string): number {
    return parseNumber('--balance', value);
  }

  @Option({
    flags: '--free <count>',
    description: 'Free transcriptions at creation (default DEFAULT_FREE_TRANSCRIPTIONS)',
  })
  parseFree(value: string): number {
    return parseNumber('--free', value);
  }

  @Option({ flags: '--key-name <name>', description: 'Label of the key made by this run' })
  parseKeyName(value: string): string {
    return value;
  }

  @Option({
    flags: '--password-stdin',
    description: 'The demo user’s dashboard password, from standard input',
  })
  parsePasswordStdin(): boolean {
    return true;
  }

  @Option({
    flags: '--key-only-if-created',
    description: 'Make a key only when the demo is created (compose)',
  })
  parseKeyOnlyIfCreated(): boolean {
    return true;
  }
}
