import { ValidationPipe } from '@nestjs/common';
import { ProblemException } from '../problem/problem.exception';
import { flattenValidationErrors } from '../problem/validation-errors';

/** The global pipe: DTOs are transformed and validated, unknown members refused (422 `validation`). */
export function validationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => ProblemException.validation(flattenValidationErrors(errors)),
  });
}
