import { ArgumentsHost, Catch, ExceptionFilter, Injectable, OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import { OPENAI_TRANSCRIPTIONS_PATH, requestPath } from '../common/http/request-path';
import { toProblem } from '../common/problem/problem-details.filter';
import { RouteErrorShapes } from '../common/problem/route-error-shapes';
import { OpenAiApiError, sendOpenAiError, toOpenAiError } from './openai-error';

/**
 * Scoped to the OpenAI-compatible controller: its errors (guard, intake, wait) answer in OpenAI's shape.
 * Anything that is not already an OpenAiApiError is first classified exactly as the service-wide filter
 * does (so a 500 still gets its logged error id), then mapped.
 */
@Catch()
export class OpenAiErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) {
      response.end();
      return;
    }
    sendOpenAiError(
      response,
      exception instanceof OpenAiApiError ? exception : toOpenAiError(toProblem(exception)),
    );
  }
}

/**
 * What is refused before the controller runs (the rate limit, an unknown method on the path) reaches only the
 * service-wide filter: the route registers OpenAI's shape there too.
 */
@Injectable()
export class OpenAiErrorShapeRegistration implements OnModuleInit {
  constructor(private readonly routeShapes: RouteErrorShapes) {}

  onModuleInit(): void {
    this.routeShapes.register(
      (request: Request) => requestPath(request) === OPENAI_TRANSCRIPTIONS_PATH,
      (response, problem) => sendOpenAiError(response, toOpenAiError(problem)),
    );
  }
}
