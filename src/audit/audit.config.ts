import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInt } from '../config/config-transformers';

/** The audit log. Property names are the environment variable names. */
export class AuditConfig {
  /**
   * Days an audit event is kept; the retention purge deletes older ones (through the database function
   * `audit_events_purge`, the only way rows leave the table). Nothing else deletes events: there is no API for it.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(36500)
  AUDIT_RETENTION_DAYS = 365;
}
