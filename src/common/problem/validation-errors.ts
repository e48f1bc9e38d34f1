import type { ValidationError } from 'class-validator';
import type { ValidationErrors } from './problem.exception';

/** class-validator's tree → `{fieldErrors, formErrors}` keyed by JSON path (`words[3]`, `a.b`). */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): ValidationErrors {
  const result: ValidationErrors = { fieldErrors: {}, formErrors: [] };
  const visit = (error: ValidationError, prefix: string): void => {
    const path = /^\d+$/.test(error.property)
      ? `${prefix}[${error.property}]`
      : prefix
        ? `${prefix}.${error.property}`
        : error.property;
    const messages = Object.values(error.constraints ?? {});
    if (messages.length > 0) (result.fieldErrors[path] ??= []).push(...messages);
    for (const child of error.children ?? []) visit(child, path);
  };
  for (const error of errors) visit(error, parent);
  return result;
}
