import { ValidateIf } from 'class-validator';

/**
 * Like @IsOptional, but only an absent member is skipped: `null` is validated (and refused by the member's
 * other rules), never passed on to a NOT NULL column as a 500.
 */
export const IfPresent = (): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);
