import { SetMetadata } from '@nestjs/common';

export const IS_SESSION_ONLY = 'isSessionOnly';

/**
 * Marks a handler as a dashboard (user session) operation: a JWT is required, from the Authorization header
 * or the session cookie; an API-key caller gets 403 `forbidden` (a leaked key must not mint more keys).
 */
export const SessionOnly = (): MethodDecorator & ClassDecorator => SetMetadata(IS_SESSION_ONLY, true);
