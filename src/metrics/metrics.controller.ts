import { Controller, Get, Header, Headers, NotFoundException, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../common/principal/public.decorator';
import { ProblemException } from '../common/problem/problem.exception';
import { MetricsService } from './metrics.service';

/**
 * GET /metrics in the Prometheus text format, outside /v1 and the API contract (an operator endpoint, like
 * /openapi.json). It takes no API key or JWT, only `Authorization: Bearer <METRICS_TOKEN>`; without a
 * configured token it does not exist (404, as any unknown route).
 */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Public()
  @Get()
  @Header('Cache-Control', 'no-store')
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    if (!this.metrics.enabled) throw new NotFoundException();
    if (!this.metrics.authorizes(authorization)) throw unauthorized();
    const { contentType, body } = await this.metrics.render();
    response.setHeader('Content-Type', contentType);
    return body;
  }
}

export function unauthorized(): ProblemException {
  return new ProblemException(
    'unauthorized',
    'Send the metrics token as `Authorization: Bearer <METRICS_TOKEN>`.',
    {},
    { 'WWW-Authenticate': 'Bearer realm="metrics"' },
  );
}
