import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { PROBLEM_CATALOGUE, type ProblemSlug } from '../common/problem/problem-catalogue';
import { MetricsConfig } from './metrics.config';
import { ProblemConfig } from '../common/problem/problem.config';
import { ProcessConfig } from '../common/lifecycle/process.config';
import { MetricsService } from './metrics.service';

/**
 * A worker-only process (ROLE=worker) has no HTTP server, yet its job durations and outcomes live in its
 * memory: with METRICS_PORT set it serves GET /metrics there, with the same token rule as the API.
 */
@Injectable()
export class WorkerMetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WorkerMetricsServer.name);
  private server: Server | null = null;

  constructor(
    private readonly config: MetricsConfig,
    private readonly processConfig: ProcessConfig,
    private readonly problems: ProblemConfig,
    private readonly metrics: MetricsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.METRICS_PORT;
    if (this.processConfig.ROLE !== 'worker' || port === undefined) return;
    const server = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0];
      if (request.method !== 'GET' || path !== '/metrics' || !this.metrics.enabled) {
        return this.problem(response, 'not-found', 'No such endpoint.');
      }
      if (!this.metrics.authorizes(request.headers.authorization)) {
        response.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        return this.problem(response, 'unauthorized', 'Send `Authorization: Bearer <METRICS_TOKEN>`.');
      }
      this.metrics.render().then(
        ({ contentType, body }) => {
          response.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
          response.end(body);
        },
        (error: Error) => {
          this.logger.error(`Metrics not rendered: ${error.message}`);
          this.problem(response, 'internal', 'The metrics could not be collected.');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, () => resolve());
    });
    this.server = server;
    this.logger.log(`Metrics on port ${port} (/metrics)`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private problem(response: ServerResponse, slug: ProblemSlug, detail: string): void {
    const { status, title } = PROBLEM_CATALOGUE[slug];
    response.writeHead(status, { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' });
    response.end(JSON.stringify({ type: `${this.problems.ERRORS_BASE_URL}/${slug}`, title, status, detail }));
  }
}
