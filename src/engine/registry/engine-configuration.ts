import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ConfigValidationError } from '../../config/app-config';
import type { EngineConfigReader, EngineConfigSlice } from './engine-descriptor';

/** The validated engine slices of one process, each under its class. */
export class EngineConfiguration implements EngineConfigReader {
  constructor(private readonly instances: ReadonlyMap<EngineConfigSlice, object>) {}

  get<T extends object>(slice: EngineConfigSlice<T>): T {
    const instance = this.instances.get(slice);
    if (instance === undefined) throw new Error(`${slice.name} is not among the loaded engine slices`);
    return instance as T;
  }
}

/**
 * Builds and validates the slices from an environment-like record; throws one ConfigValidationError with a
 * line per bad variable (`  NAME="value": message`), the format of the rest of the configuration.
 */
export function loadEngineConfiguration(
  slices: readonly EngineConfigSlice[],
  environment: Readonly<Record<string, string | undefined>>,
): EngineConfiguration {
  const lines: string[] = [];
  const instances = new Map<EngineConfigSlice, object>();
  for (const slice of slices) {
    const known = Object.keys(new slice());
    const present = Object.fromEntries(
      Object.entries(environment).filter(([key, value]) => value !== undefined && known.includes(key)),
    );
    const instance = plainToInstance(slice, present, { exposeDefaultValues: true });
    for (const error of validateSync(instance, {
      skipMissingProperties: false,
      forbidUnknownValues: false,
    })) {
      const messages = Object.values(error.constraints ?? {}).join('; ');
      lines.push(`  ${error.property}=${JSON.stringify(environment[error.property] ?? null)}: ${messages}`);
    }
    instances.set(slice, instance);
  }
  if (lines.length > 0) throw new ConfigValidationError(`Invalid configuration:\n${lines.join('\n')}`);
  return new EngineConfiguration(instances);
}
