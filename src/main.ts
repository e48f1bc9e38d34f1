import { Logger } from '@nestjs/common';
import { createHttpApp, createWorkerContext } from './bootstrap';
import { ConfigValidationError, loadAppConfig } from './config/app-config';
import { describeProcessSettings, loadProcessSettings } from './config/env-file';
import { resolveEngineTiers } from './engine/tiers/engine-tiers';

async function main(): Promise<void> {
  // The one place that reads the environment (over ./.env when it exists).
  // eslint-disable-next-line no-restricted-properties
  const settings = loadProcessSettings(process.env, process.cwd());
  const config = loadAppConfig(settings.environment);
  // A tier whose engine is missing is a configuration error: reported like the others, before anything
  // connects (EngineModule resolves again for its providers; the check is a few stat calls).
  resolveEngineTiers(config);
  const logger = new Logger('Main');
  if (config.ROLE === 'worker') {
    await createWorkerContext(config);
    logger.log(describeProcessSettings(settings));
    logger.log('Worker started (ROLE=worker)');
    return;
  }
  const app = await createHttpApp(config);
  logger.log(describeProcessSettings(settings));
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
