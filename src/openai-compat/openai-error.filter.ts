import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { ProblemConfig } from '../common/problem/problem.config';
import { ProblemDetailsFilter } from '../common/problem/problem-details.filter';
import { OpenAiApiError, sendOpenAiError, toOpenAiError } from './openai-error';

/**
 * Scoped to the OpenAI-compatible controller: its errors (guard, intake, wait) answer in OpenAI's shape.
 * Anything that is not already an OpenAiApiError is first classified exactly as the service-wide filter
 * does (so a 500 still gets its logged error id), then mapped.
 */
@Catch()
export class OpenAiErrorFilter implements ExceptionFilter {
  private readonly problems: ProblemDetailsFilter;

  constructor(config: ProblemConfig) {
    this.problems = new ProblemDetailsFilter(config);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) {
      response.end();
      return;
    }
    sendOpenAiError(
      response,
      exception instanceof OpenAiApiError ? exception : toOpenAiError(this.problems.toProblem(exception)),
    );
  }
}
