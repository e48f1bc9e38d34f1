import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../common/principal/public.decorator';
import { ProcessConfig } from '../common/lifecycle/process.config';
import { SERVICE_VERSION } from '../version';
import type { ResponseOf } from '../openapi/contract-types';
import { ReadinessService } from './readiness.service';

/**
 * GET /v1/health is liveness only: it answers while the process is up and never touches PostgreSQL or Redis.
 * GET /v1/health/ready is readiness: the dependencies a request needs, 503 while one is down or on shutdown.
 */
@Controller('v1/health')
export class HealthController {
  constructor(
    private readonly config: ProcessConfig,
    private readonly readiness: ReadinessService,
  ) {}

  @Public()
  @Get()
  @Header('Cache-Control', 'no-store')
  check(): ResponseOf<'getHealth'> {
    return {
      status: 'ok',
      timestamp: new Date().toISOString(),
      version: this.config.SERVICE_VERSION ?? SERVICE_VERSION,
    };
  }

  @Public()
  @Get('ready')
  @Header('Cache-Control', 'no-store')
  ready(): Promise<ResponseOf<'getReadiness'>> {
    return this.readiness.check();
  }
}
