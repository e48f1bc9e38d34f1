import { RequirePermission } from '../common/principal/require-permission.decorator';
import { Controller, Get, Logger, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import type { ResponseOf } from '../openapi/contract-types';
import { AuditEventFiltersDto, ListAuditEventsQueryDto } from './audit-events.dto';
import { AuditEventsService } from './audit-events.service';

/**
 * The workspace's audit log: read-only. There is no route that changes or deletes an event; only the
 * retention purge removes them (AUDIT_RETENTION_DAYS).
 *
 * Who may call it: a dashboard session or an API key of the workspace, today. When the permission table
 * lands, these two routes need the `audit:read` permission (admins and owners).
 */
@Controller('v1/audit-events')
export class AuditEventsController {
  private readonly logger = new Logger(AuditEventsController.name);

  constructor(private readonly auditEvents: AuditEventsService) {}

  @RequirePermission('audit:read')
  @Get()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListAuditEventsQueryDto,
  ): Promise<ResponseOf<'listAuditEvents'>> {
    return this.auditEvents.list(principal.workspaceId, query);
  }

  /**
   * NDJSON, streamed as the client reads it. A failure once lines were sent cannot be a problem document:
   * the connection is then cut, so the client sees a broken download, never a short one that looks whole.
   */
  @RequirePermission('audit:read')
  @Get('export')
  async export(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AuditEventFiltersDto,
    @Res() response: Response,
  ): Promise<void> {
    const lines = await this.auditEvents.export(principal, query);
    response
      .status(200)
      .setHeader('Content-Type', 'application/x-ndjson; charset=utf-8')
      .setHeader('Content-Disposition', 'attachment; filename="audit-events.ndjson"')
      .setHeader('Cache-Control', 'private, no-store');
    await pipeline(Readable.from(lines), response).catch((error: NodeJS.ErrnoException) => {
      // A client that went away is no failure of ours; anything else is worth a line in the log.
      if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') {
        this.logger.warn(`Audit export cut short: ${error.message}`);
      }
      response.destroy();
    });
  }
}
