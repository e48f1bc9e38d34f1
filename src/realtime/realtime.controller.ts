import { RequirePermission } from '../common/principal/require-permission.decorator';
import { Body, Controller, Get, Post } from '@nestjs/common';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';
import {
  type MintedClientSecret,
  RealtimeClientSecretsService,
} from './client-secrets/realtime-client-secrets.service';

/**
 * The REST side of realtime sessions: client secrets for browsers, and GET /v1/realtime without
 * `Upgrade: websocket`. The upgrade itself never reaches Express: the HTTP server hands it to RealtimeGateway.
 */
@Controller('v1/realtime')
export class RealtimeController {
  constructor(private readonly clientSecrets: RealtimeClientSecretsService) {}

  @RequirePermission('transcriptions:write')
  @Get()
  notAnUpgrade(): never {
    throw new ProblemException(
      'upgrade-required',
      'GET /v1/realtime is a WebSocket endpoint: connect with `Upgrade: websocket` (messages in asyncapi.yaml).',
      {},
      { Upgrade: 'websocket' },
    );
  }

  /** OpenAI's answer shape (no `data` envelope), so its SDK's `realtime.clientSecrets.create` reads it. */
  @RequirePermission('transcriptions:write')
  @Post('client_secrets')
  mintClientSecret(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
  ): Promise<MintedClientSecret> {
    return this.clientSecrets.mint(principal, body);
  }
}
