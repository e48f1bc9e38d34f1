import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/**
 * One module's settings: a class whose property names are the environment variable names it reads, with
 * class-validator rules and the defaults as initialisers. A variable belongs to exactly one slice.
 */
export type ConfigSlice<T extends object = object> = (new () => T) & {
  /** Rules on this slice's variables that need another slice's values (checked after every slice's own). */
  readonly crossSliceChecks?: readonly CrossSliceCheck<T>[];
};

/** A rule on one variable that depends on another slice's variable (e.g. a secret refused in production). */
export interface CrossSliceCheck<T extends object> {
  /** One of the slice's own variables: the error line names it. */
  variable: string;
  /** The message for the variable's error line, or undefined when the value is acceptable. */
  problem(slice: T, configuration: Configuration): string | undefined;
}

export class ConfigValidationError extends Error {}

/** The validated slices of one process, each under its class. */
export class Configuration {
  constructor(private readonly instances: ReadonlyMap<ConfigSlice, object>) {}

  get<T extends object>(slice: ConfigSlice<T>): T {
    const instance = this.instances.get(slice);
    if (instance === undefined) throw new Error(`${slice.name} is not among the loaded configuration slices`);
    return instance as T;
  }

  get slices(): ConfigSlice[] {
    return [...this.instances.keys()];
  }

  /** Every variable name the slices read, in slice order. */
  variableNames(): string[] {
    return this.slices.flatMap(sliceVariables);
  }
}

/** The variables a slice reads: its own properties (optional ones too, which start undefined). */
export function sliceVariables(slice: ConfigSlice): string[] {
  return Object.keys(new slice());
}

/**
 * Builds every slice from one environment-like record and validates them together: throws one
 * ConfigValidationError with a line per bad variable (`  NAME="value": message`) across all slices.
 * Variables no slice reads are ignored.
 */
export function loadConfiguration(
  slices: readonly ConfigSlice[],
  environment: Record<string, string | undefined>,
): Configuration {
  assertOneOwnerPerVariable(slices);
  const problems = new Map<string, string[]>();
  const report = (variable: string, messages: string[]) =>
    problems.set(variable, [...(problems.get(variable) ?? []), ...messages]);
  const instances = new Map<ConfigSlice, object>();
  for (const slice of slices) {
    const known = sliceVariables(slice);
    const present = Object.fromEntries(
      Object.entries(environment).filter(([key, value]) => value !== undefined && known.includes(key)),
    );
    const instance = plainToInstance(slice, present, { exposeDefaultValues: true });
    for (const error of validateSync(instance, {
      skipMissingProperties: false,
      forbidUnknownValues: false,
    })) {
      report(error.property, Object.values(error.constraints ?? {}));
    }
    instances.set(slice, instance);
  }
  const configuration = new Configuration(instances);
  for (const slice of slices) {
    for (const check of slice.crossSliceChecks ?? []) {
      if (!sliceVariables(slice).includes(check.variable)) {
        throw new Error(`${slice.name} checks ${check.variable}, which it does not read`);
      }
      const message = check.problem(configuration.get(slice), configuration);
      if (message !== undefined) report(check.variable, [message]);
    }
  }
  if (problems.size > 0) {
    const lines = [...problems].map(
      ([variable, messages]) =>
        `  ${variable}=${JSON.stringify(environment[variable] ?? null)}: ${messages.join('; ')}`,
    );
    throw new ConfigValidationError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return configuration;
}

/** One slice on its own (tests, tools), same rules; a cross-slice check needs its other slices loaded too. */
export function loadConfigSlice<T extends object>(
  slice: ConfigSlice<T>,
  environment: Record<string, string | undefined>,
): T {
  return loadConfiguration([slice], environment).get(slice);
}

function assertOneOwnerPerVariable(slices: readonly ConfigSlice[]): void {
  const owners = new Map<string, string>();
  for (const slice of slices) {
    for (const variable of sliceVariables(slice)) {
      const owner = owners.get(variable);
      if (owner !== undefined)
        throw new Error(`${variable} is read by two slices: ${owner} and ${slice.name}`);
      owners.set(variable, slice.name);
    }
  }
}
