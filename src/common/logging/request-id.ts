import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * What a caller's X-Request-Id may be: up to 128 characters of a charset that is safe in a log line, a
 * header and a URL (UUIDs, ULIDs, trace ids such as `Root=1-5e1b…`); anything else is replaced by a UUID.
 */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._~:@+=/-]{1,128}$/;

/** The caller's id when acceptable, otherwise null (the caller then gets a generated one). */
export function acceptedRequestId(header: string | string[] | undefined): string | null {
  return typeof header === 'string' && ACCEPTED_REQUEST_ID.test(header) ? header : null;
}

/**
 * The request id of the work in progress: the HTTP request being served, or the request that caused the job
 * or webhook delivery being processed. Read where a record keeps it (a transcription, an outbox event).
 */
const requestIdContext = new AsyncLocalStorage<string>();

export function currentRequestId(): string | null {
  return requestIdContext.getStore() ?? null;
}

export function runWithRequestId<T>(requestId: string, work: () => T): T {
  return requestIdContext.run(requestId, work);
}

/**
 * The first middleware of every request: takes the caller's X-Request-Id or generates one, echoes it on the
 * response (set before anything can answer, so problem+json errors and 404s carry it too) and makes it the
 * request's `id`, which the request log line and every log line written while serving it carry.
 */
export function assignRequestId(request: Request, response: Response, next: NextFunction): void {
  const requestId = acceptedRequestId(request.headers['x-request-id']) ?? randomUUID();
  (request as Request & { id?: string }).id = requestId;
  response.setHeader(REQUEST_ID_HEADER, requestId);
  runWithRequestId(requestId, next);
}
