import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { MetricsService } from './metrics.service';

/**
 * Counts and times every HTTP response by route template (`/v1/transcriptions/:id`), never by raw path,
 * so ids and probing requests cannot blow up the label set: requests that reached no route (404s,
 * refusals before routing such as 429) are labelled `unmatched`.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(request: Request, response: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    response.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const routePath = (request.route as { path?: unknown } | undefined)?.path;
      const route = typeof routePath === 'string' ? `${request.baseUrl}${routePath}` : 'unmatched';
      this.metrics.recordHttpRequest(request.method, route, response.statusCode, seconds);
    });
    next();
  }
}
