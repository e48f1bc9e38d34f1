import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { jsonBodyReader } from './json-body';
import { isUploadRequest } from './request-path';

const readJsonBody = jsonBodyReader({ maxBytes: 1024 * 1024 });
/**
 * Only these methods carry a JSON body in the contract; a body sent with GET or DELETE is ignored, and the
 * upload reads its own body (multipart, or its JSON form through the same reader with its own limit).
 */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * JSON body parsing as a Nest middleware (the platform's parser is off), so it runs after rate limiting
 * and its errors (broken JSON, too large) reach the problem-details filter like any other.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    if (!BODY_METHODS.has(request.method) || isUploadRequest(request)) return next();
    await readJsonBody(request, response);
    next();
  }
}
