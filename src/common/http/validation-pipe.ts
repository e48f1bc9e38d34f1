import { ArgumentMetadata, Injectable, PipeTransform, ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { ProblemException } from '../problem/problem.exception';
import { flattenValidationErrors } from '../problem/validation-errors';

const exceptionFactory = (errors: ValidationError[]): ProblemException =>
  ProblemException.validation(flattenValidationErrors(errors));

/**
 * The global pipe: DTOs are transformed and validated (422 `validation`). Unknown members of a body are
 * refused, since a misspelt field would otherwise be silently dropped; unknown query parameters are dropped
 * instead, since clients and proxies add their own (cache busters such as `_=1700000000`, tracking tags)
 * and the known parameters keep every rule.
 */
@Injectable()
export class ContractValidationPipe implements PipeTransform {
  private readonly strict = new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    exceptionFactory,
  });

  private readonly lenientQuery = new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    forbidUnknownValues: true,
    exceptionFactory,
  });

  transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    return (metadata.type === 'query' ? this.lenientQuery : this.strict).transform(value, metadata);
  }
}

export function validationPipe(): ContractValidationPipe {
  return new ContractValidationPipe();
}
