/**
 * Every problem type the service answers with. The record type makes the compiler refuse a slug without
 * a status and title, and ProblemSlug is the only way code names an error.
 */
export const PROBLEM_CATALOGUE = {
  unauthorized: { status: 401, title: 'Unauthorized' },
  'invalid-api-key': { status: 401, title: 'Invalid API key' },
  'invalid-token': { status: 401, title: 'Invalid token' },
  'user-not-found': { status: 401, title: 'User not found' },
  'invalid-credentials': { status: 401, title: 'Invalid credentials' },
  'invalid-refresh-token': { status: 401, title: 'Invalid refresh token' },
  'insufficient-balance': { status: 402, title: 'Insufficient balance' },
  forbidden: { status: 403, title: 'Forbidden' },
  'sso-required': { status: 403, title: 'Single sign-on required' },
  'not-found': { status: 404, title: 'Not found' },
  'request-timeout': { status: 408, title: 'Request timeout' },
  'missing-file': { status: 400, title: 'Missing file' },
  'not-ready': { status: 400, title: 'Transcription not ready' },
  'malformed-request': { status: 400, title: 'Malformed request' },
  'idempotency-key-in-flight': { status: 409, title: 'Idempotency key in flight' },
  'member-conflict': { status: 409, title: 'Membership conflict' },
  gone: { status: 410, title: 'Gone' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'range-not-satisfiable': { status: 416, title: 'Range not satisfiable' },
  'request-header-fields-too-large': { status: 431, title: 'Request header fields too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'upgrade-required': { status: 426, title: 'Upgrade required' },
  'unsupported-format': { status: 422, title: 'Unsupported format' },
  'file-too-large': { status: 422, title: 'File too large' },
  'invalid-model': { status: 422, title: 'Invalid model' },
  'invalid-speaker-hint': { status: 422, title: 'Invalid speaker hint' },
  'invalid-format': { status: 422, title: 'Invalid export format' },
  'invalid-idempotency-key': { status: 422, title: 'Invalid idempotency key' },
  'idempotency-key-mismatch': { status: 422, title: 'Idempotency key reused with a different request' },
  'webhook-endpoint-limit': { status: 422, title: 'Webhook endpoint limit reached' },
  'api-key-limit': { status: 422, title: 'API key limit reached' },
  validation: { status: 422, title: 'Validation failed' },
  'rate-limit': { status: 429, title: 'Too many requests' },
  'unbilled-processing-limit': { status: 429, title: 'Unbilled processing limit reached' },
  'client-secret-limit': { status: 429, title: 'Client secret limit reached' },
  internal: { status: 500, title: 'Internal server error' },
  'service-unavailable': { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemSlug = keyof typeof PROBLEM_CATALOGUE;

export function isProblemSlug(value: string): value is ProblemSlug {
  return Object.prototype.hasOwnProperty.call(PROBLEM_CATALOGUE, value);
}
