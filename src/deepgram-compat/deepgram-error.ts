import type { Request, Response } from 'express';
import { PROBLEM_CATALOGUE, type ProblemSlug } from '../common/problem/problem-catalogue';
import type { ProblemException } from '../common/problem/problem.exception';
import { problemSentence } from '../common/problem/problem-message';
import type { Schema } from '../openapi/contract-types';

/** The error body Deepgram's API answers with (its "legacy" error), which its SDK shows as the error's body. */
export type DeepgramErrorBody = Schema<'DeepgramError'>;

/** An error of the Deepgram-compatible route, in Deepgram's terms (docs/compatibility.md, "Errors"). */
export class DeepgramApiError extends Error {
  constructor(
    readonly status: number,
    readonly errCode: string,
    message: string,
    /** The transcription's id once the job exists (Deepgram's `request_id`); else the request's id. */
    readonly requestId: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DeepgramApiError';
  }
}

type Mapping = { status: number; errCode: string };

const BAD_REQUEST: Mapping = { status: 400, errCode: 'Bad Request' };

/**
 * The service's problems as Deepgram's errors. Bad input is Deepgram's 400 `Bad Request` (our 415/422), no
 * money is its 402 `ASR_PAYMENT_REQUIRED`, a wrong key its 401 `INVALID_AUTH`; a slug not named here keeps
 * its status with the code its class implies.
 */
const MAPPINGS: Partial<Record<ProblemSlug, Mapping>> = {
  unauthorized: { status: 401, errCode: 'INVALID_AUTH' },
  'invalid-api-key': { status: 401, errCode: 'INVALID_AUTH' },
  'invalid-token': { status: 401, errCode: 'INVALID_AUTH' },
  'user-not-found': { status: 401, errCode: 'INVALID_AUTH' },
  'insufficient-balance': { status: 402, errCode: 'ASR_PAYMENT_REQUIRED' },
  forbidden: { status: 403, errCode: 'INSUFFICIENT_PERMISSIONS' },
  'rate-limit': { status: 429, errCode: 'TOO_MANY_REQUESTS' },
  'unbilled-processing-limit': { status: 429, errCode: 'TOO_MANY_REQUESTS' },
  'payload-too-large': { status: 413, errCode: 'PAYLOAD_TOO_LARGE' },
  'file-too-large': { status: 413, errCode: 'PAYLOAD_TOO_LARGE' },
  'missing-file': BAD_REQUEST,
  'unsupported-format': BAD_REQUEST,
  'unsupported-media-type': BAD_REQUEST,
  'malformed-request': BAD_REQUEST,
  'invalid-model': BAD_REQUEST,
  'invalid-speaker-hint': BAD_REQUEST,
  validation: BAD_REQUEST,
  // As on POST /v1/transcriptions (statuses kept); 409 carries Retry-After.
  'invalid-idempotency-key': { status: 422, errCode: 'INVALID_IDEMPOTENCY_KEY' },
  'idempotency-key-mismatch': { status: 422, errCode: 'IDEMPOTENCY_KEY_MISMATCH' },
  'idempotency-key-in-flight': { status: 409, errCode: 'IDEMPOTENCY_KEY_IN_FLIGHT' },
  internal: { status: 500, errCode: 'INTERNAL_SERVER_ERROR' },
  'service-unavailable': { status: 503, errCode: 'SERVICE_UNAVAILABLE' },
};

export function toDeepgramError(
  problem: ProblemException,
  requestId: string | null = null,
): DeepgramApiError {
  const mapping = MAPPINGS[problem.slug] ?? {
    status: problem.status,
    errCode: PROBLEM_CATALOGUE[problem.slug].title.toUpperCase().replace(/[^A-Z0-9]+/g, '_'),
  };
  return new DeepgramApiError(
    mapping.status,
    mapping.errCode,
    problemSentence(problem),
    requestId,
    problem.headers,
  );
}

/** `request_id` is the job's id once it exists, else the request's own id (X-Request-Id). */
export function sendDeepgramError(request: Request, response: Response, error: DeepgramApiError): void {
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  response.setHeader('Cache-Control', 'no-store');
  const body: DeepgramErrorBody = {
    err_code: error.errCode,
    err_msg: error.message,
    request_id: error.requestId ?? (request as Request & { id?: string }).id ?? '',
  };
  response.status(error.status).json(body);
}
