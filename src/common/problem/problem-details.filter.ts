import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { ProblemConfig } from './problem.config';
import { PROBLEM_CATALOGUE, ProblemSlug } from './problem-catalogue';
import { ProblemException } from './problem.exception';
import { isInfrastructureOutage } from './infrastructure-outage';
import { RouteErrorShapes } from './route-error-shapes';

const SLUG_BY_HTTP_STATUS: Record<number, ProblemSlug> = {
  400: 'malformed-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'not-found',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  429: 'rate-limit',
  503: 'service-unavailable',
};

/** Errors raised by body-parser carry a `type` naming the failure. */
const SLUG_BY_BODY_PARSER_TYPE: Record<string, ProblemSlug> = {
  'entity.too.large': 'payload-too-large',
  'entity.parse.failed': 'malformed-request',
  'entity.verify.failed': 'malformed-request',
  'request.aborted': 'malformed-request',
  'request.size.invalid': 'malformed-request',
  'encoding.unsupported': 'unsupported-media-type',
  'charset.unsupported': 'unsupported-media-type',
};

const logger = new Logger('Problem');

/**
 * The single exception filter: every error of every route, matched or not, becomes
 * `application/problem+json`, or the shape its route registered in RouteErrorShapes. Internal details go to
 * the log under an error id, never to the client.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  constructor(
    private readonly config: ProblemConfig,
    private readonly routeShapes: RouteErrorShapes,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const problem = toProblem(exception);
    if (response.headersSent) {
      response.end();
      return;
    }
    const respond = this.routeShapes.responderFor(host.switchToHttp().getRequest<Request>());
    if (respond) {
      respond(response, problem);
      return;
    }
    sendProblem(response, this.config, problem);
  }
}

/**
 * Classifies any error as a problem: the one classification every error shape answers (a route-scoped filter
 * uses it too, so a 500 there still gets its logged error id).
 */
export function toProblem(exception: unknown): ProblemException {
  if (exception instanceof ProblemException) return exception;
  if (exception instanceof HttpException) {
    const slug = SLUG_BY_HTTP_STATUS[exception.getStatus()];
    if (slug) return new ProblemException(slug, httpDetail(exception, slug));
  }
  const bodyParserType = (exception as { type?: unknown } | null)?.type;
  if (typeof bodyParserType === 'string' && SLUG_BY_BODY_PARSER_TYPE[bodyParserType]) {
    const slug = SLUG_BY_BODY_PARSER_TYPE[bodyParserType];
    // Our own checks of the raw body (json-body.middleware) word their refusal for the client.
    if (bodyParserType === 'entity.verify.failed' && exception instanceof Error) {
      return new ProblemException(slug, exception.message);
    }
    return new ProblemException(slug, bodyParserDetail(slug));
  }
  if (isInfrastructureOutage(exception)) {
    logger.warn(`Dependency unavailable: ${describe(exception)}`);
    return new ProblemException(
      'service-unavailable',
      'A backing service is temporarily unreachable. Retry after the indicated delay.',
      {},
      { 'Retry-After': '5' },
    );
  }
  const errorId = randomUUID();
  logger.error(`errorId=${errorId} ${describe(exception)}`, (exception as Error | undefined)?.stack);
  return new ProblemException(
    'internal',
    `An unexpected error occurred. It is logged under error id ${errorId}; the request can be retried.`,
    { errorId },
  );
}

function httpDetail(exception: HttpException, slug: ProblemSlug): string {
  switch (slug) {
    case 'not-found':
      return 'No such endpoint. See /openapi.json for the available operations.';
    case 'malformed-request':
      return 'The request body could not be parsed.';
    default:
      return exception.message;
  }
}

/**
 * Writes `problem` as `application/problem+json`; also used outside the filter (idle timeouts), where the
 * request never reached a route. Problems are never stored by caches.
 */
export function sendProblem(response: Response, config: ProblemConfig, problem: ProblemException): void {
  const { status } = PROBLEM_CATALOGUE[problem.slug];
  for (const [name, value] of Object.entries(problem.headers)) response.setHeader(name, value);
  // Authenticated answers already carry `private, no-store` (security-headers.ts); keep that.
  if (!String(response.getHeader('Cache-Control') ?? '').includes('no-store')) {
    response.setHeader('Cache-Control', 'no-store');
  }
  response.status(status).type('application/problem+json').json(problemBody(config, problem));
}

/** The RFC 7807 body of `problem`; also written on a bare socket before any request exists (oversized heads). */
export function problemBody(config: ProblemConfig, problem: ProblemException): Record<string, unknown> {
  const { status, title } = PROBLEM_CATALOGUE[problem.slug];
  return {
    type: `${config.ERRORS_BASE_URL}/${problem.slug}`,
    title,
    status,
    detail: problem.detail,
    ...problem.extensions,
  };
}

function bodyParserDetail(slug: ProblemSlug): string {
  switch (slug) {
    case 'payload-too-large':
      return 'The request body exceeds the 1 MB limit for JSON bodies.';
    case 'unsupported-media-type':
      return 'The body encoding or charset is not supported; send UTF-8 JSON.';
    default:
      return 'The request body could not be parsed as JSON.';
  }
}

function describe(exception: unknown): string {
  if (exception instanceof Error) return `${exception.name}: ${exception.message}`;
  return String(exception);
}
