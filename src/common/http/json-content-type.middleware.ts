import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ProblemException } from '../problem/problem.exception';
import { isUploadRequest } from './request-path';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** JSON endpoints accept JSON only (uploads are checked by the transcriptions controller). */
@Injectable()
export class JsonContentTypeMiddleware implements NestMiddleware {
  use(request: Request, _response: Response, next: NextFunction): void {
    // Uploads are stored and probed as sent; a compressed body would be stored compressed (JSON bodies are
    // inflated by the body parser, which answers 400 when the bytes are not what the header says).
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (isUploadRequest(request) && encoding && encoding !== 'identity') {
      throw new ProblemException(
        'unsupported-media-type',
        `Uploads are accepted without Content-Encoding, not ${encoding}.`,
      );
    }
    if (
      BODY_METHODS.has(request.method) &&
      !isUploadRequest(request) &&
      hasBody(request) &&
      !request.is('application/json')
    ) {
      throw new ProblemException(
        'unsupported-media-type',
        `This endpoint accepts application/json, not ${request.headers['content-type'] ?? 'an untyped body'}.`,
      );
    }
    next();
  }
}
