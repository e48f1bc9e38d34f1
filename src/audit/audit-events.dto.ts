import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsUUID, Max, Min } from 'class-validator';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_TARGET_TYPES,
  type AuditAction,
  type AuditActorType,
  type AuditTargetType,
} from './audit-catalogue';

/** The filters of the list and of the export (query parameters). */
export class AuditEventFiltersDto {
  /** A user id or an API key id: events that user or key did. */
  @IsOptional()
  @IsUUID('all', { message: 'actorId must be a user id or an API key id (a UUID)' })
  actorId?: string;

  @IsOptional()
  @IsIn(AUDIT_ACTOR_TYPES, { message: `actorType must be one of ${AUDIT_ACTOR_TYPES.join(', ')}` })
  actorType?: AuditActorType;

  @IsOptional()
  @IsIn(AUDIT_ACTIONS, { message: 'action must be one of the AuditAction values of openapi.yaml' })
  action?: AuditAction;

  @IsOptional()
  @IsIn(AUDIT_TARGET_TYPES, { message: `targetType must be one of ${AUDIT_TARGET_TYPES.join(', ')}` })
  targetType?: AuditTargetType;

  @IsOptional()
  @IsUUID('all', { message: 'targetId must be a UUID' })
  targetId?: string;

  /** Events at or after this time. */
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;

  /** Events before this time. */
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}

export class ListAuditEventsQueryDto extends AuditEventFiltersDto {
  @IsOptional()
  @IsUUID('all', { message: 'cursor must be an audit event id from a previous page' })
  cursor?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 50;
}
