import type { ProblemException } from './problem.exception';

/**
 * A problem as one sentence, for the compatible APIs whose error body has no field list (Deepgram's `err_msg`,
 * AssemblyAI's `error`): the detail, followed by the first invalid field's reason when the detail does not already
 * say it.
 */
export function problemSentence(problem: ProblemException): string {
  const errors = problem.extensions.errors as
    { fieldErrors?: Record<string, string[]>; formErrors?: string[] } | undefined;
  const [field, reasons] = Object.entries(errors?.fieldErrors ?? {})[0] ?? [];
  const reason = reasons?.[0] ?? errors?.formErrors?.[0];
  if (reason === undefined || problem.detail.includes(reason)) return problem.detail;
  return `${problem.detail} ${field !== undefined && !reason.startsWith(field) ? `${field}: ` : ''}${reason}.`;
}
