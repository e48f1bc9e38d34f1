import { ShutdownCoordinator } from '../common/lifecycle/shutdown-coordinator';
import { ProblemException } from '../common/problem/problem.exception';
import { EngineSettingsPending } from '../config/engine-settings-pending';
import { ProcessConfig } from '../common/lifecycle/process.config';
import { QueuesConfig } from '../queues/queues.config';
import { loadConfiguration } from '../config/configuration';
import { resolveEngineTiers } from '../engine/tiers/engine-tiers';
import { ReadinessService } from './readiness.service';

describe('ReadinessService while the process drains', () => {
  it('answers 503 naming only `shutdown`, without checking any dependency', async () => {
    const configuration = loadConfiguration([ProcessConfig, EngineSettingsPending, QueuesConfig], {});
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
      configuration.get(EngineSettingsPending),
      configuration.get(QueuesConfig),
      resolveEngineTiers(configuration.get(EngineSettingsPending)),
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
