import { ShutdownCoordinator } from '../common/lifecycle/shutdown-coordinator';
import { ProblemException } from '../common/problem/problem.exception';
import { ProcessConfig } from '../common/lifecycle/process.config';
import { ENGINE_REGISTRY } from '../engine/engine-registry';
import { ModelsConfig } from '../engine/models/models.config';
import { loadConfiguration } from '../config/configuration';
import { resolveEngineTiers } from '../engine/tiers/engine-tiers';
import { ReadinessService } from './readiness.service';

describe('ReadinessService while the process drains', () => {
  it('answers 503 naming only `shutdown`, without checking any dependency', async () => {
    const configuration = loadConfiguration([ProcessConfig, ModelsConfig, ...ENGINE_REGISTRY.configSlices()], {});
    const shutdown = new ShutdownCoordinator(configuration.get(ProcessConfig));
    const untouched = new Proxy(
      {},
      {
        get: () => {
          throw new Error('a dependency was checked while draining');
        },
      },
    );
    const readiness = new ReadinessService(
      untouched as never,
      untouched as never,
      untouched as never,
      untouched as never,
      untouched as never,
      shutdown,
      resolveEngineTiers(configuration),
    );
    await shutdown.drain('SIGTERM');
    const refusal = await readiness.check().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ProblemException);
    const problem = refusal as ProblemException;
    expect(problem.slug).toBe('service-unavailable');
    expect(problem.extensions).toEqual({
      failing: ['shutdown'],
      checks: { shutdown: { status: 'down', message: 'the process is shutting down' } },
    });
    expect(problem.headers['Retry-After']).toBe('5');
  });
});
