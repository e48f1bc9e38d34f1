import { ArgumentsHost, Catch, ExceptionFilter, Injectable, OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DEEPGRAM_LISTEN_PATH, requestPath } from '../common/http/request-path';
import { toProblem } from '../common/problem/problem-details.filter';
import { RouteErrorShapes } from '../common/problem/route-error-shapes';
import { DeepgramApiError, sendDeepgramError, toDeepgramError } from './deepgram-error';

/**
 * Scoped to the Deepgram-compatible controller: its errors (guard, intake, wait) answer in Deepgram's shape.
 * Anything else is first classified exactly as the service-wide filter does (a 500 keeps its logged error id).
 */
@Catch()
export class DeepgramErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) {
      response.end();
      return;
    }
    sendDeepgramError(
      request,
      response,
      exception instanceof DeepgramApiError ? exception : toDeepgramError(toProblem(exception)),
    );
  }
}

/** What is refused before the controller runs (the rate limit, an unknown method) answers in Deepgram's shape too. */
@Injectable()
export class DeepgramErrorShapeRegistration implements OnModuleInit {
  constructor(private readonly routeShapes: RouteErrorShapes) {}

  onModuleInit(): void {
    this.routeShapes.register(
      (request: Request) => requestPath(request) === DEEPGRAM_LISTEN_PATH,
      (response, problem) => sendDeepgramError(response.req, response, toDeepgramError(problem)),
    );
  }
}
