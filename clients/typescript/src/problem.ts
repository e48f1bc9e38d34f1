import type { components } from './schema';

/** An RFC 7807 problem as the service answers it (`application/problem+json`). */
export type Problem = components['schemas']['Problem'];

/** Thrown by the helpers for any non-2xx answer; `problem.type` ends with the slug (`.../not-found`). */
export class ApiProblemError extends Error {
  override readonly name = 'ApiProblemError';
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`);
  }

  /** The slug of the problem type (`not-found`, `validation`, …). */
  get slug(): string {
    return problemSlug(this.problem.type);
  }
}

function problemSlug(type: string): string {
  return type.slice(type.lastIndexOf('/') + 1);
}

/** Turns an openapi-fetch `{error, response}` into an `ApiProblemError` (non-problem bodies get a generic title). */
export function toProblemError(error: unknown, response: Response): ApiProblemError {
  const problem =
    typeof error === 'object' && error !== null && 'type' in error && 'title' in error
      ? (error as Problem)
      : ({ type: 'about:blank', title: response.statusText || 'Error', status: response.status } as Problem);
  return new ApiProblemError(response.status, problem);
}
