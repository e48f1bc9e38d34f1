import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemException } from '../common/problem/problem.exception';
import { RequestWithAuth } from '../common/principal/principal';
import { IS_PUBLIC } from '../common/principal/public.decorator';
import { IS_SESSION_ONLY } from '../common/principal/session-only.decorator';
import { REQUIRED_PERMISSION, RouteRequirement } from '../common/principal/require-permission.decorator';
import { Principal } from '../common/principal/principal';
import { Permission } from '../common/principal/permission-table';

/**
 * Global guard: every route needs a valid credential unless marked @Public(), and the permission it names
 * (@RequirePermission, from the one permission table); a route that names none is refused to everyone.
 */
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
        assertPermitted(outcome.principal, this.requirement(context));
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

  private requirement(context: ExecutionContext): RouteRequirement | undefined {
    return this.reflector.getAllAndOverride<RouteRequirement | undefined>(REQUIRED_PERMISSION, [
      context.getHandler(),
      context.getClass(),
    ]);
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

/**
 * The one check of a permission, for HTTP routes (the guard) and WebSocket upgrades (the realtime gateway):
 * 403 `forbidden` naming the missing permission (`permission`), for sessions, keys and client secrets alike.
 */
export function assertPermitted(principal: Principal, requirement: RouteRequirement | undefined): void {
  if (requirement === 'authenticated') return;
  if (requirement === undefined) {
    throw new ProblemException(
      'forbidden',
      'This operation declares no permission, so no caller may use it.',
    );
  }
  if (principal.permissions.has(requirement)) return;
  throw missingPermission(principal, requirement);
}

export function missingPermission(principal: Principal, permission: Permission): ProblemException {
  const holder =
    principal.role !== undefined
      ? `your role in this workspace (${principal.role})`
      : principal.credential === 'api-key'
        ? "this API key's scopes"
        : 'this credential';
  return new ProblemException(
    'forbidden',
    `This operation needs the permission \`${permission}\`, which ${holder} does not grant.`,
    { permission },
  );
}
