import { Injectable } from '@nestjs/common';
import { AuditConfig } from './audit.config';
import { AUDIT_PURGE_BATCH_SIZE, AuditEventsRepository } from './audit-events.repository';

/**
 * Deletes audit events older than AUDIT_RETENTION_DAYS, in batches, through the database function
 * `audit_events_purge` (the only DELETE the table's trigger lets through). Run by the retention purge.
 */
@Injectable()
export class AuditRetention {
  constructor(
    private readonly events: AuditEventsRepository,
    private readonly config: AuditConfig,
  ) {}

  async purgeExpired(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.events.purgeBatch(this.config.AUDIT_RETENTION_DAYS);
      deleted += batch;
      if (batch < AUDIT_PURGE_BATCH_SIZE) return deleted;
    }
  }
}
