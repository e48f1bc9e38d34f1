import { IsOptional, IsString, MinLength } from 'class-validator';

/** The operators' queue dashboard. Property names are the environment variable names. */
export class AdminConfig {
  /**
   * Operator token of the queue dashboard (Bull Board at /admin/queues): `Authorization: Bearer <token>`, or
   * HTTP Basic with the token as password (any user name) so a browser can open it. Unset: every /admin path
   * answers 404. At least 32 characters.
   */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'ADMIN_TOKEN must be at least 32 characters' })
  ADMIN_TOKEN?: string;
}
