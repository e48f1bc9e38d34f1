import { Controller, Get } from '@nestjs/common';
import { ProblemException } from '../common/problem/problem.exception';

/**
 * GET /v1/realtime without `Upgrade: websocket`. The upgrade itself never reaches Express: the HTTP server hands
 * it to RealtimeGateway.
 */
@Controller('v1/realtime')
export class RealtimeController {
  @Get()
  notAnUpgrade(): never {
    throw new ProblemException(
      'upgrade-required',
      'GET /v1/realtime is a WebSocket endpoint: connect with `Upgrade: websocket` (messages in asyncapi.yaml).',
      {},
      { Upgrade: 'websocket' },
    );
  }
}
