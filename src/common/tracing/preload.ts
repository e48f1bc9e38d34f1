/**
 * Imported first by the service's entry (main.ts), before any module that tracing instruments (http,
 * express, pg, ioredis) is loaded: starts OpenTelemetry when the `OTEL_*` settings ask for it
 * (tracing-settings.ts), and does nothing else. Off, it loads no SDK module at all.
 */
import { loadProcessSettings, type ProcessSettings } from '../../config/env-file';
import { otelVariablesFromFile, tracingRequested } from './tracing-settings';

// The SDK reads its own settings from the process environment, which is what is read (and completed) here.
// eslint-disable-next-line no-restricted-properties
const environment = process.env;
let settings: ProcessSettings | null = null;
try {
  settings = loadProcessSettings(environment, process.cwd());
} catch {
  // A missing ENV_FILE: main() reads the settings again and reports it.
}
if (settings !== null) {
  Object.assign(environment, otelVariablesFromFile(settings));
  if (tracingRequested(environment)) {
    // Loaded on demand, so that a service without tracing pays nothing for it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('./tracing-sdk') as typeof import('./tracing-sdk')).startTracing(environment);
  }
}
