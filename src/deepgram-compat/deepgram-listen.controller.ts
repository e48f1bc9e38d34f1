import { Controller, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import { RequirePermission } from '../common/principal/require-permission.decorator';
import { closedSignal } from '../transcriptions/job-end-wait';
import { DeepgramErrorFilter } from './deepgram-error.filter';
import { DeepgramListenService } from './deepgram-listen.service';

/** Deepgram's pre-recorded `listen`, so its official SDK works with only its base URL changed. */
@Controller('v1/listen')
@UseFilters(DeepgramErrorFilter)
export class DeepgramListenController {
  constructor(private readonly listen: DeepgramListenService) {}

  @RequirePermission('transcriptions:write')
  @Post()
  async transcribe(
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    if (DeepgramListenService.asksForCallback(request)) {
      response.status(200).json(await this.listen.accept(principal, request));
      return;
    }
    const answer = await this.listen.transcribe(principal, request, closedSignal(response));
    if (answer) response.status(200).json(answer);
  }
}
