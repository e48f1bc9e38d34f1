import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import { RequirePermission } from '../common/principal/require-permission.decorator';
import type { Schema } from '../openapi/contract-types';
import { AssemblyAiErrorFilter } from './assemblyai-error.filter';
import { AssemblyAiService, callerBaseUrl } from './assemblyai.service';

/** AssemblyAI's `/v2` API, so its official SDK works with only its base URL changed (docs/compatibility.md). */
@Controller('v2')
@UseFilters(AssemblyAiErrorFilter)
export class AssemblyAiController {
  constructor(private readonly assemblyai: AssemblyAiService) {}

  @RequirePermission('transcriptions:write')
  @Post('upload')
  @HttpCode(200)
  upload(
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
  ): Promise<Schema<'AssemblyAiUploadedFile'>> {
    return this.assemblyai.upload(principal, request);
  }

  @RequirePermission('transcriptions:write')
  @Post('transcript')
  @HttpCode(200)
  create(
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
  ): Promise<Schema<'AssemblyAiTranscript'>> {
    return this.assemblyai.create(principal, request);
  }

  @RequirePermission('transcriptions:read')
  @Get('transcript')
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
    @Req() request: Request,
  ): Promise<Schema<'AssemblyAiTranscriptList'>> {
    return this.assemblyai.list(principal.workspaceId, queryText(query), callerBaseUrl(request));
  }

  @RequirePermission('transcriptions:read')
  @Get('transcript/:id')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<Schema<'AssemblyAiTranscript'>> {
    return this.assemblyai.get(principal.workspaceId, id);
  }

  @RequirePermission('transcriptions:write')
  @Delete('transcript/:id')
  delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<Schema<'AssemblyAiTranscript'>> {
    return this.assemblyai.delete(principal, id);
  }

  @RequirePermission('transcriptions:read')
  @Get('transcript/:id/sentences')
  sentences(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<Schema<'AssemblyAiSentences'>> {
    return this.assemblyai.sentences(principal.workspaceId, id);
  }

  @RequirePermission('transcriptions:read')
  @Get('transcript/:id/paragraphs')
  paragraphs(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<Schema<'AssemblyAiParagraphs'>> {
    return this.assemblyai.paragraphs(principal.workspaceId, id);
  }

  @RequirePermission('transcriptions:read')
  @Get('transcript/:id/word-search')
  wordSearch(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query('words') words: unknown,
  ): Promise<Schema<'AssemblyAiWordSearch'>> {
    return this.assemblyai.wordSearch(principal.workspaceId, id, textOf(words));
  }

  @RequirePermission('transcriptions:read')
  @Get('transcript/:id/:format')
  async subtitles(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('format') format: string,
    @Query('chars_per_caption') charsPerCaption: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const rendered = await this.assemblyai.subtitles(
      principal.workspaceId,
      id,
      format,
      textOf(charsPerCaption),
    );
    response.status(200).setHeader('Content-Type', rendered.contentType).end(rendered.body);
  }
}

/** A query parameter as text: repeated ones comma-joined (`words=a&words=b` is `a,b`), nested ones refused as text. */
function textOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item : '')).join(',');
  return typeof value === 'string' ? value : '';
}

function queryText(query: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(query).map(([name, value]) => [name, textOf(value) ?? '']));
}
