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
    @Query() query: Record<string, string>,
    @Req() request: Request,
  ): Promise<Schema<'AssemblyAiTranscriptList'>> {
    return this.assemblyai.list(principal.workspaceId, query, callerBaseUrl(request));
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
    @Query('words') words: string | undefined,
  ): Promise<Schema<'AssemblyAiWordSearch'>> {
    return this.assemblyai.wordSearch(principal.workspaceId, id, words);
  }

  @RequirePermission('transcriptions:read')
  @Get('transcript/:id/:format')
  async subtitles(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('format') format: string,
    @Query('chars_per_caption') charsPerCaption: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    const rendered = await this.assemblyai.subtitles(principal.workspaceId, id, format, charsPerCaption);
    response.status(200).setHeader('Content-Type', rendered.contentType).end(rendered.body);
  }
}
