import { Injectable, NestMiddleware } from '@nestjs/common';
import { json, NextFunction, Request, Response } from 'express';
import { isUploadRequest } from './request-path';

/** No request body of the contract nests deeper than 3; deep nesting would only overflow the stack later. */
const MAX_JSON_DEPTH = 64;
const parseJson = json({
  limit: '1mb',
  strict: true,
  verify: (_request, _response, raw) => refuseDeepNesting(raw),
});
/**
 * Only these methods carry a JSON body in the contract; a body sent with GET or DELETE is ignored, and the
 * upload (multipart only) answers 415 for JSON instead of parsing it.
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
    await new Promise<void>((resolve, reject) =>
      parseJson(request, response, (error?: unknown) => (error ? reject(toError(error)) : resolve())),
    );
    next();
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Scans the raw bytes (outside strings) for `[`/`{` nesting deeper than MAX_JSON_DEPTH: 400 malformed-request. */
function refuseDeepNesting(raw: Buffer): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < raw.length; index++) {
    const byte = raw[index];
    if (inString) {
      if (byte === 0x5c) index++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) {
        throw Object.assign(new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), {
          type: 'entity.verify.failed',
        });
      }
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
}
