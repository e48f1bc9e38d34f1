import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigValidationError } from './configuration';

/** The settings a process starts from: its environment on top of an env file, and what was taken from where. */
export interface ProcessSettings {
  /** The variables to validate (loadAppConfiguration): the file's, then the real environment's over them. */
  environment: Record<string, string | undefined>;
  /** Absolute path of the file that was read; null when none was. */
  file: string | null;
  /** Names whose value came from the file. */
  fromFile: string[];
  /** Names the file sets that the real environment set too (the environment's value is used). */
  overridden: string[];
}

/**
 * Reads `./.env` of the working directory when it exists (or the file `ENV_FILE` names, which must exist;
 * `ENV_FILE=none` reads none) and lays the real environment over it: a variable set in the environment always
 * wins, so `PORT=3300 node dist/main.js` listens on 3300 whatever the file says. The file is parsed, never
 * executed (`KEY=value` lines, `#` comments, quotes, an optional `export `), and the environment itself is not
 * changed: only the configuration loader sees the result. The service (main.ts) and the CLI (cli.ts) both start here.
 */
export function loadProcessSettings(
  environment: Record<string, string | undefined>,
  workingDirectory: string,
): ProcessSettings {
  const named = environment.ENV_FILE;
  if (named === 'none') return { environment, file: null, fromFile: [], overridden: [] };
  const file = resolve(workingDirectory, named || '.env');
  if (!existsSync(file)) {
    if (named)
      throw new ConfigValidationError(
        `Invalid configuration:\n  ENV_FILE=${JSON.stringify(named)}: no such file`,
      );
    return { environment, file: null, fromFile: [], overridden: [] };
  }
  const fileVariables = parseEnv(readFileSync(file, 'utf8'));
  const names = Object.keys(fileVariables);
  const overridden = names.filter((name) => environment[name] !== undefined);
  return {
    environment: { ...fileVariables, ...environment },
    file,
    fromFile: names.filter((name) => environment[name] === undefined),
    overridden,
  };
}

/** One line for the log (service) or stderr (CLI) naming the file that was read. */
export function describeProcessSettings(settings: ProcessSettings): string {
  if (settings.file === null) return 'No .env file read: settings come from the environment only';
  const beaten =
    settings.overridden.length === 0
      ? ''
      : `; the environment's own ${settings.overridden.join(', ')} won over the file's`;
  return `Read settings from ${settings.file} (${settings.fromFile.length} variables from the file${beaten})`;
}
