import type { ProcessSettings } from '../../config/env-file';

/**
 * When the service traces (docs/operations.md, "Tracing"): off unless an OTLP endpoint or a trace exporter
 * is named — `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_TRACES_EXPORTER`
 * (other than `none`) — and never with `OTEL_SDK_DISABLED=true`. The SDK itself would export to
 * localhost:4318 with nothing set; a service that nobody configured for tracing sends nothing anywhere.
 */
export function tracingRequested(environment: Record<string, string | undefined>): boolean {
  const set = (name: string): string | undefined => {
    const value = environment[name]?.trim();
    return value ? value : undefined;
  };
  if (set('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return false;
  const exporters = set('OTEL_TRACES_EXPORTER')
    ?.split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (exporters?.includes('none')) return false;
  if (exporters !== undefined && exporters.length > 0) return true;
  return (
    set('OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined ||
    set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined
  );
}

/**
 * The `OTEL_*` variables an env file sets and the environment does not: the SDK reads its settings from the
 * process environment only, so these are copied there before it starts (the one exception to "the file never
 * changes the environment"; the environment still wins, as for every other setting).
 */
export function otelVariablesFromFile(settings: ProcessSettings): Record<string, string> {
  const copied: Record<string, string> = {};
  for (const name of settings.fromFile) {
    const value = settings.environment[name];
    if (name.startsWith('OTEL_') && value !== undefined) copied[name] = value;
  }
  return copied;
}
