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

/** AssemblyAI's error is one sentence; the two its SDK users know by their words are worded as AssemblyAI does. */
function messageOf(problem: ProblemException): string {
  if (problem.slug === 'unauthorized' || problem.slug === 'invalid-api-key') {
    return `Authentication error, API token missing/invalid. ${problem.detail}`;
  }
  if (problem.slug === 'not-found') return 'Transcript not found';
  return problemSentence(problem);
}

export function toAssemblyAiError(problem: ProblemException): AssemblyAiApiError {
  return new AssemblyAiApiError(STATUS[problem.slug] ?? problem.status, messageOf(problem), problem.headers);
}

export function sendAssemblyAiError(response: Response, error: AssemblyAiApiError): void {
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  response.setHeader('Cache-Control', 'no-store');
  response.status(error.status).json({ error: error.message } satisfies AssemblyAiErrorBody);
}
