import { SetMetadata } from '@nestjs/common';
import type { Permission } from './permission-table';

export const REQUIRED_PERMISSION = 'requiredPermission';

/**
 * What a route needs, from the one permission table (src/common/principal/permission-table.ts): a permission,
 * or `authenticated` for a route every member and key of the workspace may call (the caller's own memberships).
 * A route with neither this nor @Public() is refused to everyone (the guard fails closed).
 */
export type RouteRequirement = Permission | 'authenticated';

export const RequirePermission = (requirement: RouteRequirement): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_PERMISSION, requirement);
