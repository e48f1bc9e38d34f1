import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { requestPath } from '../common/http/request-path';
import { loggedQuery } from './request-log-query';
import { ApiKeyRequestLog } from './api-key-request-log.service';
import type { RequestWithAuth } from '../common/principal/principal';

/** What a request whose client went away before any answer was sent is logged with (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Logs every request an API key authenticated, refused ones included (rate limit, validation, 404), when its
 * response ends. Reads the caller resolved by RequestContextMiddleware; hands the entry to the buffered log.
 */
@Injectable()
export class ApiKeyRequestLogMiddleware implements NestMiddleware {
  constructor(private readonly log: ApiKeyRequestLog) {}

  use(request: RequestWithAuth & Pick<Request, 'id'>, response: Response, next: NextFunction): void {
    const at = new Date();
    const started = process.hrtime.bigint();
    response.once('close', () => {
      const auth = request.auth;
      const apiKeyId = auth?.kind === 'authenticated' ? auth.principal.apiKeyId : undefined;
      if (!apiKeyId) return;
      this.log.record({
        apiKeyId,
        at,
        method: request.method,
        path: requestPath(request),
        query: loggedQuery(request.originalUrl),
        status: response.headersSent ? response.statusCode : CLIENT_CLOSED_REQUEST,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        requestId: typeof request.id === 'string' ? request.id : '',
      });
    });
    next();
  }
}
