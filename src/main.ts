// First: the young generation is held at its starting size while the modules load, capped once serving
// (young-generation.ts).
import { capYoungGenerationOnceServing } from './common/lifecycle/hold-young-generation';
// Then tracing: when configured, it must be started before the modules it instruments are loaded.
import './common/tracing/preload';
import { Logger } from '@nestjs/common';
import { createHttpApp, createWorkerContext } from './bootstrap';
import { ConfigValidationError } from './config/configuration';
import { HttpConfig } from './common/http/http.config';
import { ProcessConfig } from './common/lifecycle/process.config';
import { loadAppConfiguration } from './app-configuration';
import { describeProcessSettings, loadProcessSettings } from './config/env-file';
import { resolveEngineTiers } from './engine/tiers/engine-tiers';
import { nodeVersionWarning } from './common/lifecycle/node-version';
import { NODE_ENGINES } from './version';

async function main(): Promise<void> {
  const unsupportedNode = nodeVersionWarning(process.version, NODE_ENGINES);
  if (unsupportedNode) new Logger('Main').warn(unsupportedNode);
  // The one place that reads the environment (over ./.env when it exists).
  // eslint-disable-next-line no-restricted-properties
  const settings = loadProcessSettings(process.env, process.cwd());
  const configuration = loadAppConfiguration(settings.environment);
  // A tier whose engine is missing is a configuration error: reported like the others, before anything
  // connects (EngineModule resolves again for its providers; the check is a few stat calls).
  resolveEngineTiers(configuration);
  const { ROLE } = configuration.get(ProcessConfig);
  const { PORT } = configuration.get(HttpConfig);
  const logger = new Logger('Main');
  if (ROLE === 'worker') {
    await createWorkerContext(configuration);
    logger.log(describeProcessSettings(settings));
    logger.log('Worker started (ROLE=worker)');
    capYoungGenerationOnceServing();
    return;
  }
  const app = await createHttpApp(configuration);
  logger.log(describeProcessSettings(settings));
  await app.listen(PORT);
  logger.log(`Listening on port ${PORT} (ROLE=${ROLE})`);
  capYoungGenerationOnceServing();
}

main().catch((error: unknown) => {
  if (error instanceof ConfigValidationError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
