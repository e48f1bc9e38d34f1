import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ProcessConfig } from '../../common/lifecycle/process.config';
import { RetentionPurgeService } from './retention-purge.service';

/** How often a worker runs the retention purge; retention is counted in days, so minutes of delay are moot. */
export const RETENTION_PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** Runs the retention purge periodically in the worker roles (`worker`, `all`), never in `api`. */
@Injectable()
export class RetentionPurgeScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RetentionPurgeScheduler.name);
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: ProcessConfig,
    private readonly purge: RetentionPurgeService,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.ROLE === 'api') return;
    this.timer = setInterval(() => {
      this.purge
        .purgeExpired()
        .catch((error: Error) => this.logger.warn(`Retention purge failed: ${error.message}`));
    }, RETENTION_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
