/**
 * Starts the OpenTelemetry SDK (traces only unless the operator names metrics or logs exporters), with the
 * HTTP (server side), Express, PostgreSQL and ioredis instrumentations. Loaded only when tracing is requested
 * (preload.ts), so a service that does not trace loads none of this.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import type { IncomingMessage } from 'node:http';
import { onTracingShutdown } from './trace-context';

/** Probes and scrapes come every few seconds and are not anyone's job: no trace for them. */
const UNTRACED_PATHS = /^\/(?:v1\/health(?:\/|$|\?)|metrics(?:$|\?))/;

export function startTracing(environment: Record<string, string | undefined>): void {
  const sdk = new NodeSDK({
    serviceName: environment.OTEL_SERVICE_NAME ? undefined : 'transcription-service',
    // Traces only: the service's metrics are Prometheus' (/metrics), its logs JSON lines on stdout. An operator
    // who names OTEL_METRICS_EXPORTER or OTEL_LOGS_EXPORTER gets what the SDK makes of them.
    ...(environment.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(environment.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.test(request.url ?? ''),
        // No client spans and no automatic traceparent on outgoing requests: their URLs may carry secrets
        // (signed audio links, webhook URLs), and a third party is not told our trace ids unasked. A webhook
        // delivery sends its traceparent itself (webhook-delivery.service.ts).
        ignoreOutgoingRequestHook: () => true,
        // A query string may carry a credential (an SSE access token): its keys and values stay out of spans.
        startIncomingSpanHook: (request: IncomingMessage) =>
          (request.url ?? '').includes('?') ? { 'url.query': '[redacted]' } : {},
      }),
      // Routes' handlers, not each of the dozen global middleware every request passes (a span apiece).
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Statements without their values; only inside a trace (no span per poll of an idle worker).
      new PgInstrumentation({
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        ignoreConnectSpans: true,
      }),
      // The command name only: arguments carry job data and keys.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  onTracingShutdown(() => sdk.shutdown());
}
