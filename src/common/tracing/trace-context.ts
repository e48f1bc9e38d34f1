import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

/**
 * The service's side of OpenTelemetry: carrying a job's trace context through the places it waits (a
 * transcription row, a Bull job, an outbox event) and the spans of its steps. Only @opentelemetry/api is used:
 * while no SDK is started (the default, see tracing-settings.ts) every call here is a no-op that returns
 * nothing to carry, so code calls these helpers unconditionally.
 */

/** The name of the tracer of the service's own spans (the instrumentations use theirs). */
const TRACER = 'transcription-service';

/** The W3C header, as in a carrier and on a webhook request. */
export const TRACEPARENT = 'traceparent';

/** What the W3C Trace Context format allows (version 00): checked before a stored value is trusted. */
const TRACEPARENT_FORMAT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The `traceparent` of `from` (by default the active context): what a record keeps so that later work, in
 * another process, continues the same trace. Null when tracing is off or nothing is being traced.
 */
export function currentTraceparent(from: Context = context.active()): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  const value = carrier[TRACEPARENT];
  return typeof value === 'string' && TRACEPARENT_FORMAT.test(value) ? value : null;
}

/**
 * The context a stored `traceparent` stands for, to start spans under; the root context (a new trace) for
 * none, one of the wrong shape, or while tracing is off.
 */
export function contextOf(traceparent: string | null | undefined): Context {
  if (typeof traceparent !== 'string' || !TRACEPARENT_FORMAT.test(traceparent)) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { [TRACEPARENT]: traceparent });
}

/** The headers that carry `from`'s trace to another service (a webhook receiver); none when not traced. */
export function traceHeaders(from: Context = context.active()): Record<string, string> {
  const traceparent = currentTraceparent(from);
  return traceparent === null ? {} : { [TRACEPARENT]: traceparent };
}

export interface SpanOptions {
  /** The context to start under; by default the active one. */
  parent?: Context;
  kind?: SpanKind;
  attributes?: Attributes;
}

/**
 * Runs `work` inside a new span (active meanwhile, so what it logs carries its trace id and what it records
 * keeps its context). A throw is recorded on the span (its type and message, no stack) and rethrown.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = trace
    .getTracer(TRACER)
    .startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
    span.setAttribute('error.type', error instanceof Error ? error.name : typeof error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A span that happened elsewhere and is known from its times only: a chunk decoded by the engine child,
 * which reports each one to the worker when done (the child has no SDK of its own).
 */
export function recordFinishedSpan(
  name: string,
  parent: Context,
  times: { startedAt: number; endedAt: number },
  attributes: Attributes,
): void {
  trace
    .getTracer(TRACER)
    .startSpan(name, { kind: SpanKind.INTERNAL, attributes, startTime: times.startedAt }, parent)
    .end(times.endedAt);
}

/** The fields a log line carries while a span is being recorded: none when tracing is off. */
export function traceLogFields(): { trace_id: string; span_id: string } | Record<string, never> {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const spanContext = span.spanContext();
  if (!trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

export { SpanKind };

let shutdownHook: (() => Promise<void>) | null = null;

/** Set by the SDK when it starts (tracing-sdk.ts): what exporting the spans still buffered takes. */
export function onTracingShutdown(hook: () => Promise<void>): void {
  shutdownHook = hook;
}

/**
 * Exports the spans still buffered and stops the SDK, waiting `timeoutMs` at most (an unreachable collector
 * must not hold up an exit); nothing to do while tracing is off. Called on the way out (graceful-shutdown.ts).
 */
export async function shutdownTracing(timeoutMs = 5_000): Promise<void> {
  const hook = shutdownHook;
  if (hook === null) return;
  shutdownHook = null;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    hook().catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
  ]);
  clearTimeout(timer);
}
