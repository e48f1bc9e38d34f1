import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemException } from '../common/problem/problem.exception';
import { RequestWithAuth } from '../common/principal/principal';
import { IS_PUBLIC } from '../common/principal/public.decorator';
import { IS_SESSION_ONLY } from '../common/principal/session-only.decorator';

/** Global guard: every route needs a valid credential unless marked @Public(). */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const outcome = context.switchToHttp().getRequest<RequestWithAuth>().auth ?? { kind: 'anonymous' };
    switch (outcome.kind) {
      case 'authenticated':
        if (outcome.principal.credential !== 'jwt' && this.isSessionOnly(context)) {
          throw new ProblemException(
            'forbidden',
            'This is a dashboard operation: sign in (a user session token), an API key cannot call it.',
          );
        }
        return true;
      case 'failed':
        throw outcome.problem;
      case 'anonymous':
        throw new ProblemException(
          'unauthorized',
          'Send a credential as `Authorization: Bearer <API key or JWT>` or `X-API-KEY: <API key>`.',
        );
    }
  }

  private isSessionOnly(context: ExecutionContext): boolean {
    return (
      this.reflector.getAllAndOverride<boolean | undefined>(IS_SESSION_ONLY, [
        context.getHandler(),
        context.getClass(),
      ]) === true
    );
  }
}
