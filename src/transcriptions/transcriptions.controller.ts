import { RequirePermission } from '../common/principal/require-permission.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import { ResourceIdPipe } from '../common/http/resource-id.pipe';
import { ShutdownCoordinator } from '../common/lifecycle/shutdown-coordinator';
import { ProblemException } from '../common/problem/problem.exception';
import { TranscriptionsConfig } from './transcriptions.config';
import type { ResponseOf } from '../openapi/contract-types';
import { TranscriptionAudioService } from './audio/transcription-audio.service';
import { buildContentDisposition } from './export/export-file-name';
import { ListTranscriptionsQueryDto } from './list-transcriptions.dto';
import { TranscriptSearchQueryDto } from './transcript-search';
import { TranscriptionEventsService } from './transcription-events.service';
import { streamTranscriptionState } from './transcription-event-stream';
import { toTranscriptionDetail, toTranscriptionSummary } from './transcription.views';
import { TranscriptionsService } from './transcriptions.service';
import { TranscriptionUploadService } from './upload/transcription-upload.service';
import { UpdateTranscriptionDto } from './update-transcription.dto';

@Controller('v1/transcriptions')
export class TranscriptionsController {
  constructor(
    private readonly transcriptions: TranscriptionsService,
    private readonly uploads: TranscriptionUploadService,
    private readonly events: TranscriptionEventsService,
    private readonly config: TranscriptionsConfig,
    private readonly shutdown: ShutdownCoordinator,
    private readonly audioFiles: TranscriptionAudioService,
  ) {}

  /** Sent as the service's bytes: a replayed Idempotency-Key answer is byte-identical to the first. */
  @RequirePermission('transcriptions:write')
  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const reply = await this.uploads.accept(principal, request);
    response.status(reply.status).setHeader('Content-Type', reply.contentType).end(reply.body);
  }

  @RequirePermission('transcriptions:read')
  @Get()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListTranscriptionsQueryDto,
  ): Promise<ResponseOf<'listTranscriptions'>> {
    const page = await this.transcriptions.list(principal.workspaceId, query);
    return { data: page.items.map(toTranscriptionSummary), cursor: page.cursor, hasMore: page.hasMore };
  }

  @RequirePermission('transcriptions:read')
  @Get(':id')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<ResponseOf<'getTranscription'>> {
    return { data: toTranscriptionDetail(await this.transcriptions.get(principal.workspaceId, id)) };
  }

  /** Names the transcript's speakers (stored; every export uses them). */
  @RequirePermission('transcriptions:write')
  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Body() body: UpdateTranscriptionDto,
  ): Promise<ResponseOf<'updateTranscription'>> {
    const updated = await this.transcriptions.renameSpeakers(principal.workspaceId, id, body.speakerNames);
    return { data: toTranscriptionDetail(updated) };
  }

  @RequirePermission('transcriptions:read')
  @Get(':id/status')
  async status(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<ResponseOf<'getTranscriptionStatus'>> {
    const { status, progress } = await this.transcriptions.getState(principal.workspaceId, id);
    return { data: { id, status, progress } };
  }

  @RequirePermission('transcriptions:read')
  @Get(':id/events')
  async stream(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const current = await this.transcriptions.getState(principal.workspaceId, id);
    await streamTranscriptionState(request, response, {
      transcriptionId: id,
      current,
      events: this.events,
      readState: () =>
        this.transcriptions.getState(principal.workspaceId, id).catch((error: unknown) => {
          if (error instanceof ProblemException && error.slug === 'not-found') return null;
          throw error;
        }),
      retryMs: this.config.SSE_RETRY_MS,
      shutdown: this.shutdown,
    });
  }

  /** The stored upload for the player; also with the session cookie (an `<audio src>` sends no header). */
  @RequirePermission('transcriptions:read')
  @Get(':id/audio')
  async audio(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    await this.audioFiles.send(principal, id, request.headers.range, response);
  }

  @RequirePermission('transcriptions:read')
  @Get(':id/search')
  async search(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Query() query: TranscriptSearchQueryDto,
  ): Promise<ResponseOf<'searchTranscript'>> {
    const occurrences = await this.transcriptions.search(principal.workspaceId, id, query.q);
    return { data: { q: query.q, count: occurrences.length, occurrences } };
  }

  @RequirePermission('transcriptions:read')
  @Get(':id/export')
  async export(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    // Read by name, not through a DTO: other query parameters are ignored, and a missing, repeated or
    // unknown format is the documented 422 invalid-format rather than a generic validation problem. The
    // layout controls (max_lines, timestamps, ...) are read from the whole query by the export module.
    @Query('format') format: unknown,
    @Query() query: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const rendered = await this.transcriptions.export(
      principal.workspaceId,
      id,
      typeof format === 'string' ? format : undefined,
      query,
    );
    response
      .status(200)
      .setHeader('Content-Type', rendered.contentType)
      .setHeader('Content-Disposition', buildContentDisposition(rendered.fileName))
      .setHeader('Cache-Control', 'private, no-store')
      .end(rendered.body);
  }

  @RequirePermission('transcriptions:write')
  @Delete(':id')
  @HttpCode(204)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<void> {
    await this.transcriptions.delete(principal, id);
  }
}
