import { ArgumentsHost, Catch, ExceptionFilter, Injectable, OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isAssemblyAiRequest } from '../common/http/request-path';
import { toProblem } from '../common/problem/problem-details.filter';
import { RouteErrorShapes } from '../common/problem/route-error-shapes';
import { AssemblyAiApiError, sendAssemblyAiError, toAssemblyAiError } from './assemblyai-error';

/** Scoped to the AssemblyAI-compatible controller: its errors answer in AssemblyAI's shape. */
@Catch()
export class AssemblyAiErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) {
      response.end();
      return;
    }
    sendAssemblyAiError(
      response,
      exception instanceof AssemblyAiApiError ? exception : toAssemblyAiError(toProblem(exception)),
    );
  }
}

/** What is refused before the controller runs (the rate limit, an unknown path under /v2/) answers so too. */
@Injectable()
export class AssemblyAiErrorShapeRegistration implements OnModuleInit {
  constructor(private readonly routeShapes: RouteErrorShapes) {}

  onModuleInit(): void {
    this.routeShapes.register(
      (request: Request) => isAssemblyAiRequest(request),
      (response, problem) => sendAssemblyAiError(response, toAssemblyAiError(problem)),
    );
  }
}
