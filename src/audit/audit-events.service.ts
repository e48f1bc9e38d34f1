import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Principal } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';
import type { ResponseOf, Schema } from '../openapi/contract-types';
import { AuditEvent } from './audit-event.entity';
import { AuditEventFilters, AuditEventsRepository } from './audit-events.repository';
import { AuditEventFiltersDto, ListAuditEventsQueryDto } from './audit-events.dto';
import { AuditLog } from './audit-log.service';

export type AuditEventView = Schema<'AuditEvent'>;

/** Events one export query reads: the export holds at most this many in memory at a time. */
export const AUDIT_EXPORT_BATCH_SIZE = 500;

export function toAuditEventView(event: AuditEvent): AuditEventView {
  return {
    id: event.id,
    at: event.at.toISOString(),
    action: event.action,
    workspaceId: event.workspaceId,
    actor: {
      type: event.actorType,
      userId: event.actorUserId,
      apiKeyId: event.actorApiKeyId,
      credential: event.actorCredential,
    },
    clientIp: event.clientIp,
    requestId: event.requestId,
    target: event.targetType === null ? null : { type: event.targetType, id: event.targetId },
    before: event.before,
    after: event.after,
    details: event.details,
  };
}

/** The workspace's audit log as its admins read it: a page at a time, or all of it as NDJSON. */
@Injectable()
export class AuditEventsService {
  constructor(
    private readonly events: AuditEventsRepository,
    private readonly audit: AuditLog,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async list(workspaceId: string, query: ListAuditEventsQueryDto): Promise<ResponseOf<'listAuditEvents'>> {
    const filters = toFilters(query);
    if (query.cursor !== undefined && !(await this.events.exists(workspaceId, query.cursor))) {
      throw ProblemException.field('cursor', 'cursor does not name an audit event of this workspace');
    }
    const rows = await this.events.newestFirst(workspaceId, filters, {
      cursor: query.cursor,
      limit: query.limit,
    });
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    return {
      data: page.map(toAuditEventView),
      cursor: hasMore ? page[page.length - 1].id : null,
      hasMore,
    };
  }

  /**
   * The export: first its own event (`audit_log.exported`, committed before a byte is sent, so no export
   * happens unrecorded), then every matching event up to that one, oldest first, one JSON object per line,
   * read AUDIT_EXPORT_BATCH_SIZE at a time as the client takes them.
   */
  async export(principal: Principal, query: AuditEventFiltersDto): Promise<AsyncIterable<string>> {
    const filters = toFilters(query);
    const exportEventId = await this.dataSource.transaction((tx) =>
      this.audit.record(tx, {
        principal,
        action: 'audit_log.exported',
        target: { type: 'audit_log', id: null },
        details: { filters: { ...query } },
      }),
    );
    return this.lines(principal.workspaceId, filters, exportEventId);
  }

  private async *lines(
    workspaceId: string,
    filters: AuditEventFilters,
    untilId: string,
  ): AsyncGenerator<string> {
    let afterId: string | null = null;
    for (;;) {
      const batch = await this.events.oldestFirst(
        workspaceId,
        filters,
        { afterId, untilId },
        AUDIT_EXPORT_BATCH_SIZE,
      );
      if (batch.length > 0) {
        yield batch.map((event) => `${JSON.stringify(toAuditEventView(event))}\n`).join('');
      }
      if (batch.length < AUDIT_EXPORT_BATCH_SIZE) return;
      afterId = batch[batch.length - 1].id;
    }
  }
}

function toFilters(query: AuditEventFiltersDto): AuditEventFilters {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from && to && from.getTime() > to.getTime()) {
    throw ProblemException.field('to', 'to must not be before from');
  }
  return {
    actorId: query.actorId?.toLowerCase(),
    actorType: query.actorType,
    action: query.action,
    targetType: query.targetType,
    targetId: query.targetId?.toLowerCase(),
    from,
    to,
  };
}
