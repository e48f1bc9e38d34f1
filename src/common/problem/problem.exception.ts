import { PROBLEM_CATALOGUE, ProblemSlug } from './problem-catalogue';

/** Extension members allowed next to the RFC 7807 core members. */
export type ProblemExtensions = Record<string, unknown>;

export interface ValidationErrors {
  fieldErrors: Record<string, string[]>;
  formErrors: string[];
}

/** The one error type that carries a client-facing problem; everything else becomes `internal`. */
export class ProblemException extends Error {
  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    readonly extensions: ProblemExtensions = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(`${slug}: ${detail}`);
    this.name = 'ProblemException';
  }

  get status(): number {
    return PROBLEM_CATALOGUE[this.slug].status;
  }

  static notFound(what: string): ProblemException {
    return new ProblemException('not-found', `${what} does not exist.`);
  }

  static validation(
    errors: Partial<ValidationErrors>,
    detail = 'The request is not valid.',
  ): ProblemException {
    return new ProblemException('validation', detail, {
      errors: { fieldErrors: errors.fieldErrors ?? {}, formErrors: errors.formErrors ?? [] },
    });
  }

  static field(field: string, message: string): ProblemException {
    return ProblemException.validation({ fieldErrors: { [field]: [message] } }, message);
  }
}
