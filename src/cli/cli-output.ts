/** CLI commands print exactly one JSON line on success; scripts and tests parse it. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function fail(message: string): never {
  throw new CliError(message);
}

export class CliError extends Error {}

export function parseNumber(flag: string, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value))
    fail(`${flag} must be a number, got ${JSON.stringify(raw)}`);
  return value;
}
