import { Logger } from '@nestjs/common';
import { createHttpApp, createWorkerContext } from './bootstrap';
import { ConfigValidationError, loadAppConfig } from './config/app-config';
import { resolveEngineTiers } from './engine/tiers/engine-tiers';

async function main(): Promise<void> {
  // The one place that reads the environment.
  // eslint-disable-next-line no-restricted-properties
  const config = loadAppConfig(process.env);
  // A tier whose engine is missing is a configuration error: reported like the others, before anything
  // connects (EngineModule resolves again for its providers; the check is a few stat calls).
  resolveEngineTiers(config);
  const logger = new Logger('Main');
  if (config.ROLE === 'worker') {
    await createWorkerContext(config);
    logger.log('Worker started (ROLE=worker)');
    return;
  }
  const app = await createHttpApp(config);
  await app.listen(config.PORT);
  logger.log(`Listening on port ${config.PORT} (ROLE=${config.ROLE})`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigValidationError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
