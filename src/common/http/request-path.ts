import type { Request } from 'express';

/** The full path of the request without the query; inside mounted middleware `request.path` is relative. */
export function requestPath(request: Request): string {
  return (request.originalUrl.split('?')[0] ?? '/').replace(/\/+$/, '') || '/';
}
