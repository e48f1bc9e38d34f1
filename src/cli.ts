import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommandFactory } from 'nest-commander';
import { CliError, printJson } from './cli/cli-output';
import { CliModule } from './cli/cli.module';
import { ConfigValidationError } from './config/configuration';
import { DatabaseConfig } from './database/database.config';
import { loadAppConfiguration } from './app-configuration';
import { describeProcessSettings, loadProcessSettings } from './config/env-file';
import { migrationSource, pendingSchemaChanges, runMigrations } from './database/migration-runner';

/**
 * Operator CLI: `node dist/cli.js <command> [--flags]`. Schema commands run without the Nest container
 * (they must work on an empty or missing database); the rest are nest-commander commands.
 */
async function main(argv: string[]): Promise<void> {
  // The one other place that reads the environment (over ./.env when it exists).
  // eslint-disable-next-line no-restricted-properties
  const settings = loadProcessSettings(process.env, process.cwd());
  // stdout carries the command's one JSON line; which file was read goes to stderr, only when one was.
  if (settings.file !== null) console.error(describeProcessSettings(settings));
  const configuration = loadAppConfiguration(settings.environment);
  const config = configuration.get(DatabaseConfig);
  const command = argv[0];
  switch (command) {
    case 'migrate':
      printJson({ applied: await runMigrations(config) });
      return;
    case 'migrate:check':
      return checkDrift(config);
    case 'migration:generate':
      return generateMigration(config, argv[1]);
    default:
      await CommandFactory.run(CliModule.register(configuration), {
        logger: ['error', 'warn'],
        errorHandler: (error) => {
          throw error;
        },
        serviceErrorHandler: (error) => {
          throw error;
        },
      });
  }
}

async function checkDrift(config: DatabaseConfig): Promise<void> {
  const changes = await pendingSchemaChanges(config);
  if (changes.up.length > 0) {
    console.error('Entities and migrations differ; the migrations lack:\n' + changes.up.join(';\n'));
    process.exitCode = 1;
    return;
  }
  printJson({ drift: false });
}

async function generateMigration(config: DatabaseConfig, name: string | undefined): Promise<void> {
  if (!name) throw new CliError('usage: migration:generate <Name>');
  const changes = await pendingSchemaChanges(config);
  if (changes.up.length === 0) throw new CliError('No changes: entities and migrations agree.');
  const timestamp = Date.now();
  const file = join(__dirname, '..', 'migrations', `${timestamp}-${name}.ts`);
  writeFileSync(file, migrationSource(name, timestamp, changes));
  printJson({ file });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigValidationError || error instanceof CliError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
