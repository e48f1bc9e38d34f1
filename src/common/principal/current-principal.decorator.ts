import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Principal, RequestWithAuth } from './principal';

/** The authenticated caller; only valid on guarded (non-public) handlers. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => {
    const outcome = context.switchToHttp().getRequest<RequestWithAuth>().auth;
    if (outcome?.kind !== 'authenticated') throw new Error('CurrentPrincipal used on a public handler');
    return outcome.principal;
  },
);
