import { RequirePermission } from '../common/principal/require-permission.decorator';
import { Controller, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import { OpenAiErrorFilter } from './openai-error.filter';
import { OpenAiTranscriptionService } from './openai-transcription.service';
import { closedSignal } from '../transcriptions/job-end-wait';

/** OpenAI's `audio/transcriptions`, so the official SDKs work with only their baseURL changed. */
@Controller('v1/audio')
@UseFilters(OpenAiErrorFilter)
export class OpenAiCompatController {
  constructor(private readonly openai: OpenAiTranscriptionService) {}

  @RequirePermission('transcriptions:write')
  @Post('transcriptions')
  async transcribe(
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const answer = await this.openai.transcribe(principal, request, closedSignal(response));
    if (answer) response.status(200).setHeader('Content-Type', answer.contentType).end(answer.body);
  }
}
