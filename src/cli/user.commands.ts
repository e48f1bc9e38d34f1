import { Command, CommandRunner, Option } from 'nest-commander';
import { UserPasswordService } from '../auth/session/user-password.service';
import { ProblemException } from '../common/problem/problem.exception';
import { fail, printJson } from './cli-output';
import { readPasswordFromStdin } from './password-input';

@Command({
  name: 'user:set-password',
  description:
    'Set the dashboard sign-in password of a user, read from standard input (never from the command line); ends their sessions',
})
export class UserSetPasswordCommand extends CommandRunner {
  constructor(private readonly passwords: UserPasswordService) {
    super();
  }

  async run(_parameters: string[], options: { email?: string }): Promise<void> {
    if (!options.email) fail('--email is required');
    const password = await readPasswordFromStdin();
    try {
      printJson(await this.passwords.setPassword(options.email, password));
    } catch (error) {
      if (error instanceof ProblemException) fail(error.detail);
      throw error;
    }
  }

  @Option({ flags: '--email <email>', description: 'Email of the user' })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--password-stdin', description: 'Read the password from standard input (the default)' })
  parsePasswordStdin(): boolean {
    return true;
  }
}
