import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { AppConfig } from '../config/app-config';
import { SERVICE_VERSION } from '../version';

/** Liveness only: answers while the process is up and never touches PostgreSQL or Redis. */
@Controller('v1/health')
export class HealthController {
  constructor(private readonly config: AppConfig) {}

  @Public()
  @Get()
  @Header('Cache-Control', 'no-store')
  check(): { status: 'ok'; timestamp: string; version: string } {
    return {
      status: 'ok',
      timestamp: new Date().toISOString(),
      version: this.config.SERVICE_VERSION ?? SERVICE_VERSION,
    };
  }
}
