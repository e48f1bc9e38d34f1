import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { mountQueueBoard } from './admin/queue-board';
import { AppModule } from './app.module';
import { applyIdleTimeouts, idleRequestTimeout } from './common/http/idle-timeouts';
import { answerOversizedHeadsAsProblems } from './common/http/oversized-head';
import { lingerBounds } from './common/http/http.config';
import { closeGracefullyOnSignals, drainHttpServerOnShutdown } from './common/lifecycle/graceful-shutdown';
import { ShutdownCoordinator } from './common/lifecycle/shutdown-coordinator';
import { enableConfiguredCors, securityHeaders } from './common/http/security-headers';
import { FrameworkDetailAtDebug } from './common/logging/framework-detail-at-debug';
import { literalUndecodablePath } from './common/http/undecodable-path';
import { assignRequestId } from './common/logging/request-id';
import { bindClientAddress } from './common/http/client-address';
import { validationPipe } from './common/http/validation-pipe';
import { ProblemDetailsFilter } from './common/problem/problem-details.filter';
import { RouteErrorShapes } from './common/problem/route-error-shapes';
import { Configuration } from './config/configuration';
import { HttpConfig } from './common/http/http.config';
import { ProblemConfig } from './common/problem/problem.config';
import { AdminConfig } from './admin/admin.config';
import { mountWebApp } from './web-app/web-app';

/**
 * Every Nest `Logger` call goes to the JSON logger (nestjs-pino, LoggingModule; LOG_LEVEL filters there);
 * lines of the boot before it exists are buffered and written through it. The framework's per-module and
 * per-route lines are debug, so the default level's start-up is a few lines.
 */
function useJsonLogger(app: INestApplicationContext): void {
  app.useLogger(new FrameworkDetailAtDebug(app.get(PinoNestLogger)));
}

/** The hand-written contract, the single source for /openapi.json and the /docs UI. */
export function loadOpenApiDocument(): OpenAPIObject {
  return parse(readFileSync(join(__dirname, '..', 'openapi.yaml'), 'utf8')) as OpenAPIObject;
}

/** The HTTP application (roles `api` and `all`). */
export async function createHttpApp(configuration: Configuration): Promise<INestApplication> {
  const http = configuration.get(HttpConfig);
  const problems = configuration.get(ProblemConfig);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(configuration), {
    bodyParser: false,
    bufferLogs: true,
  });
  useJsonLogger(app);
  app.disable('x-powered-by');
  // First: every answer, whoever writes it (routes, the problem filter, 404s, timeouts), echoes the request id.
  app.use(assignRequestId);
  // The client address of per-IP rate limits (request.ip): X-Forwarded-For only from trusted proxies.
  app.set('trust proxy', http.TRUST_PROXY);
  // Then the client address under that setting, for what records it (audit events).
  app.use(bindClientAddress);
  applyIdleTimeouts(app.getHttpServer(), http);
  answerOversizedHeadsAsProblems(app.getHttpServer(), problems, lingerBounds(http));
  app.use(idleRequestTimeout(http, problems));
  app.use(securityHeaders);
  enableConfiguredCors(app, http);
  app.use(literalUndecodablePath);
  // Operators' queue dashboard, behind ADMIN_TOKEN; ahead of the API's middleware (no API key, no rate limit).
  mountQueueBoard(app, configuration.get(AdminConfig), problems);
  // The dashboard's static files, like /docs outside the API's routes.
  mountWebApp(app);
  app.useGlobalFilters(new ProblemDetailsFilter(problems, app.get(RouteErrorShapes)));
  app.useGlobalPipes(validationPipe());
  // SIGTERM/SIGINT drain (readiness 503, no new connections, requests in flight finish), then exit 0.
  drainHttpServerOnShutdown(app.getHttpServer(), app.get(ShutdownCoordinator));
  closeGracefullyOnSignals(app);
  SwaggerModule.setup('docs', app, loadOpenApiDocument(), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Transcription API reference',
  });
  return app;
}

/** A process with queue processors and no HTTP listener (role `worker`). */
export async function createWorkerContext(configuration: Configuration): Promise<INestApplicationContext> {
  const context = await NestFactory.createApplicationContext(AppModule.register(configuration), {
    bufferLogs: true,
  });
  useJsonLogger(context);
  // SIGTERM/SIGINT: no new jobs, running ones finish or are handed back (SHUTDOWN_GRACE_MS), then exit 0.
  closeGracefullyOnSignals(context);
  return context;
}
