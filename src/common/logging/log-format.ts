import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import type { Options } from 'pino-http';
import type { RequestWithAuth } from '../principal/principal';
import { LoggingConfig } from './logging.config';
import { ProcessConfig } from '../lifecycle/process.config';
import { requestPath } from '../http/request-path';
import { traceLogFields } from '../tracing/trace-context';

/** LOG_LEVEL keeps Nest's names; pino's equivalents. */
const PINO_LEVEL: Record<LoggingConfig['LOG_LEVEL'], LevelWithSilent> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/**
 * Secrets never reach a line: request bodies and headers are never logged at all (the request line has
 * method, path without its query, status), and these paths are censored should any code log such an object.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'headers["set-cookie"]',
  '*.authorization',
  '*.apiKey',
  '*.password',
  '*.secret',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
];

/** The process's one pino logger: JSON lines on stdout, written synchronously (none lost at exit). */
export function createRootLogger(
  config: LoggingConfig,
  processConfig: ProcessConfig,
  destination: DestinationStream = pino.destination({ dest: 1, sync: true }),
): Logger {
  return pino(
    {
      level: PINO_LEVEL[config.LOG_LEVEL],
      base: { pid: process.pid, role: processConfig.ROLE },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // The trace of the work in progress (trace_id, span_id) when the service traces; nothing otherwise.
      mixin: traceLogFields,
    },
    destination,
  );
}

type Request = RequestWithAuth;

/** One line per request: method, path (no query: it may hold secrets), status, duration, caller's workspace. */
function requestLine(
  incoming: IncomingMessage,
  response: ServerResponse,
  durationMs: number,
): Record<string, unknown> {
  // The pino-http middleware runs inside Express: the message is an Express request.
  const request = incoming as Request;
  const auth = request.auth;
  return {
    method: request.method,
    path: requestPath(request),
    status: response.statusCode,
    durationMs,
    ...(auth?.kind === 'authenticated' ? { workspaceId: auth.principal.workspaceId } : {}),
  };
}

/** The `req` binding pino-http makes on every request, serialized to nothing: no line writes the request object. */
function omitRequest(): undefined {
  return undefined;
}

/** pino-http: the request id (assigned by `assignRequestId`) bound to every line of the request. */
export function httpLogOptions(root: Logger): Options {
  return {
    logger: root,
    // assignRequestId (the first middleware) has set it; a fallback only for an app mounted without it.
    genReqId: (request) => (typeof request.id === 'string' ? request.id : randomUUID()),
    customAttributeKeys: { reqId: 'requestId' },
    quietReqLogger: true,
    quietResLogger: true,
    // pino-http binds the whole request (`req`: headers, address, query) to a second child logger on every request,
    // serialized and redacted at once, even though with both loggers quiet no line ever uses it (the request line
    // is `requestLine`). Serializing it to nothing saves that work on every request (docs/decisions.md, "Hot
    // reads"); it also keeps any request-scoped line from ever carrying the request's headers.
    wrapSerializers: false,
    serializers: { req: omitRequest },
    customLogLevel: (_request, response, error) =>
      error !== undefined || response.statusCode >= 500 ? 'error' : 'info',
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customSuccessObject: (request, response, value: { responseTime: number }) =>
      requestLine(request, response, value.responseTime),
    customErrorObject: (request, response, _error, value: { responseTime: number }) =>
      requestLine(request, response, value.responseTime),
  };
}
