import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import type { AuditAction, AuditActorType, AuditTargetType } from './audit-catalogue';
import { AuditEvent } from './audit-event.entity';

export interface AuditEventFilters {
  /** A user id or an API key id. */
  actorId?: string;
  actorType?: AuditActorType;
  action?: AuditAction;
  targetType?: AuditTargetType;
  targetId?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
}

/** Events one purge statement deletes at most (short statements, no long lock on a big backlog). */
export const AUDIT_PURGE_BATCH_SIZE = 5_000;

/**
 * Every query on audit_events, each scoped to one workspace. Places in the order are compared in SQL against
 * the anchor row itself (`(at, id) < (SELECT at, id …)`): `at` has microseconds, a JavaScript Date only
 * milliseconds, so a cursor carried through JavaScript would skip or repeat events of the same millisecond.
 */
@Injectable()
export class AuditEventsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Whether the workspace has an event with this id (a cursor must name one). */
  exists(workspaceId: string, id: string): Promise<boolean> {
    return this.dataSource.getRepository(AuditEvent).exists({ where: { workspaceId, id } });
  }

  /** Newest first (`at`, then `id`, descending), after the event `cursor` when given; one more than `limit`. */
  newestFirst(
    workspaceId: string,
    filters: AuditEventFilters,
    page: { cursor?: string; limit: number },
  ): Promise<AuditEvent[]> {
    const query = this.filtered(this.dataSource.manager, workspaceId, filters)
      .orderBy('e.at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .take(page.limit + 1);
    if (page.cursor !== undefined) {
      query.andWhere(
        '(e.at, e.id) < (SELECT a.at, a.id FROM audit_events a WHERE a.id = :cursor AND a.workspace_id = :workspaceId)',
        { cursor: page.cursor },
      );
    }
    return query.getMany();
  }

  /**
   * Oldest first (`at`, then `id`, ascending), after the event `afterId` when given and up to the event
   * `untilId` included (the export's batches: what existed when the export began, however long it runs).
   */
  oldestFirst(
    workspaceId: string,
    filters: AuditEventFilters,
    range: { afterId: string | null; untilId: string },
    limit: number,
  ): Promise<AuditEvent[]> {
    const afterId = range.afterId;
    const query = this.filtered(this.dataSource.manager, workspaceId, filters)
      .andWhere(
        '(e.at, e.id) <= (SELECT u.at, u.id FROM audit_events u WHERE u.id = :untilId AND u.workspace_id = :workspaceId)',
        { untilId: range.untilId },
      )
      .orderBy('e.at', 'ASC')
      .addOrderBy('e.id', 'ASC')
      .take(limit);
    if (afterId !== null) {
      query.andWhere(
        '(e.at, e.id) > (SELECT a.at, a.id FROM audit_events a WHERE a.id = :afterId AND a.workspace_id = :workspaceId)',
        { afterId },
      );
    }
    return query.getMany();
  }

  /**
   * Deletes one batch of events older than `retentionDays`, of every workspace, through the database function
   * that alone may delete them (the table's trigger refuses every other DELETE); answers how many went.
   */
  async purgeBatch(retentionDays: number): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ deleted: number }>>(
      'SELECT audit_events_purge($1, $2) AS deleted',
      [retentionDays, AUDIT_PURGE_BATCH_SIZE],
    );
    return Number(row.deleted);
  }

  private filtered(
    manager: EntityManager,
    workspaceId: string,
    filters: AuditEventFilters,
  ): SelectQueryBuilder<AuditEvent> {
    const query = manager
      .getRepository(AuditEvent)
      .createQueryBuilder('e')
      .where('e.workspace_id = :workspaceId', { workspaceId });
    if (filters.actorId !== undefined) {
      query.andWhere('(e.actor_user_id = :actorId OR e.actor_api_key_id = :actorId)', {
        actorId: filters.actorId,
      });
    }
    if (filters.actorType !== undefined) {
      query.andWhere('e.actor_type = :actorType', { actorType: filters.actorType });
    }
    if (filters.action !== undefined) query.andWhere('e.action = :action', { action: filters.action });
    if (filters.targetType !== undefined) {
      query.andWhere('e.target_type = :targetType', { targetType: filters.targetType });
    }
    if (filters.targetId !== undefined) {
      query.andWhere('e.target_id = :targetId', { targetId: filters.targetId });
    }
    if (filters.from !== undefined) query.andWhere('e.at >= :from', { from: filters.from });
    if (filters.to !== undefined) query.andWhere('e.at < :to', { to: filters.to });
    return query;
  }
}
