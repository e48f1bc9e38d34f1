import type { Request } from 'express';

/** The full path of the request without the query; inside mounted middleware `request.path` is relative. */
export function requestPath(request: Request): string {
  return (request.originalUrl.split('?')[0] ?? '/').replace(/\/+$/, '') || '/';
}

/** POST /v1/transcriptions: the one multipart endpoint, exempt from JSON content-type and body handling. */
export function isUploadRequest(request: Request): boolean {
  return request.method === 'POST' && requestPath(request) === '/v1/transcriptions';
}
