import type { Response } from 'express';
import type { ProblemSlug } from '../common/problem/problem-catalogue';
import type { ProblemException } from '../common/problem/problem.exception';
import { problemSentence } from '../common/problem/problem-message';
import type { Schema } from '../openapi/contract-types';

/** AssemblyAI's error body, `{"error": "…"}`, which its SDK throws as `new Error(error)`. */
export type AssemblyAiErrorBody = Schema<'AssemblyAiError'>;

/** An error of the AssemblyAI-compatible routes, in AssemblyAI's terms (docs/compatibility.md, "Errors"). */
export class AssemblyAiApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AssemblyAiApiError';
  }
}

/** AssemblyAI answers bad input with 400 (our 415/422) and an unknown or foreign transcript with 404. */
const STATUS: Partial<Record<ProblemSlug, number>> = {
  'unsupported-format': 400,
  'unsupported-media-type': 400,
  'invalid-model': 400,
  'invalid-speaker-hint': 400,
  'file-too-large': 413,
  validation: 400,
  'missing-file': 400,
  'malformed-request': 400,
  'invalid-format': 400,
  // AssemblyAI has no Idempotency-Key; the service honours it all the same, and refuses its misuse as bad input.
  'invalid-idempotency-key': 400,
  'idempotency-key-mismatch': 400,
};

/** AssemblyAI's error is one sentence; its SDK users read these two as AssemblyAI words them. */
function messageOf(problem: ProblemException): string {
  if (problem.slug === 'unauthorized' || problem.slug === 'invalid-api-key') {
    return `Authentication error, API token missing/invalid. ${problem.detail}`;
  }
  if (problem.slug === 'not-found') return 'Transcript not found';
  const errors = problem.extensions.errors as
    { fieldErrors?: Record<string, string[]>; formErrors?: string[] } | undefined;
  const [field, reasons] = Object.entries(errors?.fieldErrors ?? {})[0] ?? [];
  const reason = reasons?.[0] ?? errors?.formErrors?.[0];
  if (reason === undefined || problem.detail.includes(reason)) return problem.detail;
  return `${problem.detail} ${field !== undefined && !reason.startsWith(field) ? `${field}: ` : ''}${reason}.`;
}

export function toAssemblyAiError(problem: ProblemException): AssemblyAiApiError {
  return new AssemblyAiApiError(STATUS[problem.slug] ?? problem.status, messageOf(problem), problem.headers);
}

export function sendAssemblyAiError(response: Response, error: AssemblyAiApiError): void {
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  response.setHeader('Cache-Control', 'no-store');
  response.status(error.status).json({ error: error.message } satisfies AssemblyAiErrorBody);
}
