import type { NextFunction, Request, Response } from 'express';

/**
 * A path that cannot be percent-decoded (`/v1/transcriptions/%E0%A4%A`) would fail inside Express's router,
 * before any middleware (rate-limit headers) and as a 400. Taken literally instead (every `%` escaped), it
 * reaches the routes like any other path and its id, not being a UUID, is the documented 404.
 */
export function literalUndecodablePath(request: Request, _response: Response, next: NextFunction): void {
  const queryStart = request.url.indexOf('?');
  const path = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  try {
    decodeURIComponent(path);
  } catch {
    request.url = path.replace(/%/g, '%25') + (queryStart === -1 ? '' : request.url.slice(queryStart));
  }
  next();
}
