import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { User } from '../../account/user.entity';
import { ProblemException } from '../../common/problem/problem.exception';
import { hashPassword, passwordProblem } from './password-hasher';
import { RefreshToken } from './refresh-token.entity';
import { lockUserExclusive } from '../sign-in-locks';
import { normaliseEmail } from '../email-address';

/** Sets a user's dashboard password (operator CLI); the one place a stored password changes. */
@Injectable()
export class UserPasswordService {
  constructor(@InjectRepository(User) private readonly users: Repository<User>) {}

  async setPassword(emailInput: string, password: string): Promise<{ userId: string; email: string }> {
    const problem = passwordProblem(password);
    if (problem) throw ProblemException.field('password', problem);
    const email = normaliseEmail(emailInput);
    const user = await this.users.findOneBy({ email });
    if (!user) throw ProblemException.notFound(`A user with the email ${email}`);
    const passwordHash = await hashPassword(password);
    // A new password ends every sign-in made with the old one, in the transaction that sets it and under the
    // user's row held exclusively (sign-in-locks.ts): a refresh rotating meanwhile has either stored its
    // successor (revoked here) or finds its token revoked; a sign-in checked against the old hash is refused.
    await this.users.manager.transaction(async (manager) => {
      if (!(await lockUserExclusive(manager, user.id))) {
        throw ProblemException.notFound(`A user with the email ${email}`);
      }
      await manager.getRepository(User).update({ id: user.id }, { passwordHash });
      await manager
        .getRepository(RefreshToken)
        .update({ userId: user.id, revokedOn: IsNull() }, { revokedOn: new Date() });
    });
    return { userId: user.id, email };
  }
}
