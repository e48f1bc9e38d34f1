import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthIndicatorFunction,
} from '@nestjs/terminus';
import type Redis from 'ioredis';
import { MODEL_TIERS } from '../common/model-tier-catalogue';
import { ShutdownCoordinator } from '../common/lifecycle/shutdown-coordinator';
import { ProblemException } from '../common/problem/problem.exception';
import { InjectRedis } from '../common/redis/redis.module';
import { EngineTiers } from '../engine/tiers/engine-tiers';
import { FileStorage } from '../storage/file-storage';
import type { Schema } from '../openapi/contract-types';

/** Each dependency check gives up after this long (the probe itself must answer within a probe's timeout). */
const CHECK_TIMEOUT_MS = 2_000;
/** Recogniser files change only on deployment: checked at most this often, probes in between reuse it. */
const RECOGNIZER_CACHE_MS = 5_000;

/** One part's state, as terminus reports it (`message` says why a part is down). */
export type ReadinessCheck = Schema<'ReadinessCheck'>;

/**
 * The readiness probe (GET /v1/health/ready): PostgreSQL, Redis, the upload store and each tier's recogniser,
 * through @nestjs/terminus. Unlike liveness it answers 503 while a dependency is down or the process drains,
 * so a load balancer stops routing to it without restarting it.
 */
@Injectable()
export class ReadinessService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    @InjectRedis() private readonly redis: Redis,
    private readonly storage: FileStorage,
    private readonly shutdown: ShutdownCoordinator,
    private readonly tiers: EngineTiers,
  ) {}

  /** `{status: 'ok', checks}`; a 503 service-unavailable problem naming the failing parts otherwise. */
  async check(): Promise<Schema<'Readiness'>> {
    if (this.shutdown.draining) {
      throw this.notReady({ shutdown: { status: 'down', message: 'the process is shutting down' } });
    }
    try {
      const result = await this.health.check(this.checks());
      return { status: 'ok', checks: result.details as Record<string, ReadinessCheck> };
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const { details } = error.getResponse() as { details: Record<string, ReadinessCheck> };
      throw this.notReady(details);
    }
  }

  private checks(): HealthIndicatorFunction[] {
    return [
      () => this.database.pingCheck('database').withTimeout(CHECK_TIMEOUT_MS),
      () =>
        this.indicators
          .check('redis')
          .attempt(async () => void (await this.redis.ping()))
          .withTimeout(CHECK_TIMEOUT_MS),
      () =>
        this.indicators
          .check('storage')
          .attempt(() => this.storage.checkReady())
          .withTimeout(CHECK_TIMEOUT_MS),
      ...MODEL_TIERS.map(
        (tier) => () =>
          this.indicators
            .check(`recognizer_${tier}`)
            .attempt(() => this.tiers.checkRecognizer(tier))
            .withTimeout(CHECK_TIMEOUT_MS)
            .cacheFor(RECOGNIZER_CACHE_MS),
      ),
    ];
  }

  private notReady(checks: Record<string, ReadinessCheck>): ProblemException {
    const failing = Object.keys(checks).filter((name) => checks[name].status !== 'up');
    return new ProblemException(
      'service-unavailable',
      `Not ready: ${failing.join(', ')}.`,
      {
        checks,
        failing,
      },
      { 'Retry-After': '5', 'Cache-Control': 'no-store' },
    );
  }
}
