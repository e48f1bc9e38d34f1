#!/usr/bin/env node
/**
 * `npx stt-contract --base-url URL --api-key KEY [options]` (also `npm run contract -- …`): the contract runner
 * QA points at a deployment. See USAGE in options.ts and docs/guides/qa.md.
 */
import { OptionsError, parseRunnerOptions, USAGE } from './options';
import { runContract } from './runner';

async function main(): Promise<number> {
  let options;
  try {
    // The runner is a client, not the service: its STT_* credentials are not service configuration.
    // eslint-disable-next-line no-restricted-properties
    const { STT_BASE_URL, STT_API_KEY, STT_API_KEY_2, STT_EMAIL, STT_PASSWORD } = process.env;
    options = parseRunnerOptions(process.argv.slice(2), {
      STT_BASE_URL,
      STT_API_KEY,
      STT_API_KEY_2,
      STT_EMAIL,
      STT_PASSWORD,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  return runContract(options, (text) => process.stdout.write(text));
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `stt-contract: ${error instanceof OptionsError ? error.message : String((error as Error).stack ?? error)}\n`,
    );
    process.exitCode = 2;
  },
);
