import { Command, CommandRunner } from 'nest-commander';
import { Configuration } from '../config/configuration';
import { resolveEngineTiers } from '../engine/tiers/engine-tiers';
import { printJson } from './cli-output';

/**
 * `node dist/cli.js engine:tiers`: what each tier runs on this deployment with the current configuration and
 * installed models, as one JSON line; a misconfigured tier fails with the same message the service gives at boot.
 */
@Command({
  name: 'engine:tiers',
  description:
    'Print the recogniser, Whisper model, diarizer and languages each tier resolves to (one JSON line)',
})
export class EngineTiersCommand extends CommandRunner {
  constructor(private readonly config: Configuration) {
    super();
  }

  async run(): Promise<void> {
    printJson(resolveEngineTiers(this.config));
  }
}
