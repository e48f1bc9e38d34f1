import type { Response } from 'express';
import type { ProblemSlug } from '../common/problem/problem-catalogue';
import { ProblemException } from '../common/problem/problem.exception';
import type { Schema } from '../openapi/contract-types';

/** The error body OpenAI's API answers with, which its SDKs read into `error.message`, `.type`, `.code`. */
export type OpenAiErrorBody = Schema<'OpenAiError'>;

/**
 * An error of the OpenAI-compatible route, in OpenAI's terms. `x-should-retry: false` is set whenever a
 * retry would not help or would start (and bill) a second job: the OpenAI SDK retries 408, 409, 429 and
 * 5xx by default, but obeys that header.
 */
export class OpenAiApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string | null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'OpenAiApiError';
  }

  get body(): OpenAiErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

const NO_RETRY = { 'x-should-retry': 'false' };

type Mapping = Pick<OpenAiApiError, 'status' | 'type' | 'code'> & { param?: string; retry?: false };

const invalidRequest = (status: number, code: string | null, param?: string): Mapping => ({
  status,
  type: 'invalid_request_error',
  code,
  param,
});

/**
 * The service's problems as OpenAI's errors (docs/decisions.md, "OpenAI-compatible transcriptions"). Bad
 * input is 400 as OpenAI answers it (our 415/422), no money is OpenAI's 429 `insufficient_quota`, and a
 * slug not named here keeps its status with the type its class implies.
 */
const MAPPINGS: Partial<Record<ProblemSlug, Mapping>> = {
  unauthorized: invalidRequest(401, 'invalid_api_key'),
  'invalid-api-key': invalidRequest(401, 'invalid_api_key'),
  'invalid-token': invalidRequest(401, 'invalid_api_key'),
  'user-not-found': invalidRequest(401, 'invalid_api_key'),
  'insufficient-balance': {
    status: 429,
    type: 'insufficient_quota',
    code: 'insufficient_quota',
    retry: false,
  },
  // A role or key scope without `transcriptions:write` (docs/permissions.md); the message names the permission.
  forbidden: invalidRequest(403, 'insufficient_permissions'),
  'rate-limit': { status: 429, type: 'requests', code: 'rate_limit_exceeded' },
  'unbilled-processing-limit': { status: 429, type: 'requests', code: 'rate_limit_exceeded' },
  'payload-too-large': invalidRequest(413, 'file_too_large', 'file'),
  'file-too-large': invalidRequest(413, 'file_too_large', 'file'),
  'missing-file': invalidRequest(400, null, 'file'),
  'unsupported-format': invalidRequest(400, 'invalid_file_format', 'file'),
  'unsupported-media-type': invalidRequest(400, null),
  'malformed-request': invalidRequest(400, null),
  'invalid-model': invalidRequest(400, 'model_not_found', 'model'),
  validation: invalidRequest(400, null),
  // As on POST /v1/transcriptions (statuses kept); 409 carries Retry-After, and the SDK retries a 409.
  'invalid-idempotency-key': invalidRequest(422, 'invalid_idempotency_key'),
  'idempotency-key-mismatch': invalidRequest(422, 'idempotency_key_mismatch'),
  'idempotency-key-in-flight': invalidRequest(409, 'idempotency_key_in_flight'),
  internal: { status: 500, type: 'server_error', code: null },
  'service-unavailable': { status: 503, type: 'server_error', code: 'service_unavailable' },
};

export function toOpenAiError(problem: ProblemException): OpenAiApiError {
  const mapping: Mapping = MAPPINGS[problem.slug] ?? {
    status: problem.status,
    type: problem.status >= 500 ? 'server_error' : 'invalid_request_error',
    code: null,
  };
  const headers = { ...problem.headers, ...(mapping.retry === false ? NO_RETRY : {}) };
  return new OpenAiApiError(
    mapping.status,
    problem.detail,
    mapping.type,
    mapping.code,
    mapping.param ?? firstInvalidField(problem),
    headers,
  );
}

/** The field a validation problem names first, as OpenAI's `param`. */
function firstInvalidField(problem: ProblemException): string | null {
  const errors = problem.extensions.errors as { fieldErrors?: Record<string, unknown> } | undefined;
  return Object.keys(errors?.fieldErrors ?? {})[0] ?? null;
}

/** A job that exists was not answered: never retried by the SDK (a retry would start a second job). */
export function jobError(
  status: number,
  message: string,
  code: string,
  type = 'server_error',
): OpenAiApiError {
  return new OpenAiApiError(status, message, type, code, null, NO_RETRY);
}

export function sendOpenAiError(response: Response, error: OpenAiApiError): void {
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  response.setHeader('Cache-Control', 'no-store');
  response.status(error.status).json(error.body);
}
