import { context, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import {
  contextOf,
  currentTraceparent,
  inSpan,
  recordFinishedSpan,
  traceHeaders,
  traceLogFields,
} from './trace-context';

type SpanProcessor = NonNullable<NodeSDKConfiguration['spanProcessors']>[number];
type EndedSpan = Parameters<SpanProcessor['onEnd']>[0];

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

describe('trace context carriers with no SDK started (tracing off)', () => {
  it('carry nothing and change nothing', async () => {
    expect(currentTraceparent()).toBeNull();
    expect(contextOf(TRACEPARENT)).toBe(ROOT_CONTEXT);
    expect(traceHeaders()).toEqual({});
    expect(traceLogFields()).toEqual({});
    await expect(inSpan('work', {}, async () => traceLogFields())).resolves.toEqual({});
  });
});

describe('trace context carriers with the SDK started', () => {
  const ended: EndedSpan[] = [];
  const sdk = new NodeSDK({
    autoDetectResources: false,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    spanProcessors: [
      {
        onStart: () => undefined,
        onEnd: (span: EndedSpan) => void ended.push(span),
        forceFlush: async () => undefined,
        shutdown: async () => undefined,
      },
    ],
  });
  beforeAll(() => sdk.start());
  afterAll(() => sdk.shutdown());
  beforeEach(() => ended.splice(0));

  it('a stored traceparent becomes the parent of the next span, which is then the one carried on', async () => {
    const seen = await inSpan('process transcriptions', { parent: contextOf(TRACEPARENT) }, async (span) => ({
      spanId: span.spanContext().spanId,
      carried: currentTraceparent(),
      headers: traceHeaders(),
      log: traceLogFields(),
    }));
    expect(ended).toHaveLength(1);
    const [span] = ended;
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(seen.carried).toBe(`00-${TRACE_ID}-${seen.spanId}-01`);
    expect(seen.headers).toEqual({ traceparent: seen.carried });
    expect(seen.log).toEqual({ trace_id: TRACE_ID, span_id: seen.spanId });
    // Outside the span nothing is active any more.
    expect(currentTraceparent()).toBeNull();
  });

  it('a malformed or missing traceparent starts a new trace instead of failing', async () => {
    for (const stored of [null, undefined, 'garbage', `01-${TRACE_ID}-${PARENT_ID}-01-extra`]) {
      expect(contextOf(stored)).toBe(ROOT_CONTEXT);
    }
    await inSpan('send transcriptions', { parent: contextOf('garbage') }, async () => undefined);
    expect(ended[0].parentSpanContext).toBeUndefined();
    expect(ended[0].spanContext().traceId).not.toBe(TRACE_ID);
  });

  it('nested spans default to the active context as parent', async () => {
    await inSpan('outer', { parent: contextOf(TRACEPARENT) }, () =>
      inSpan('inner', {}, async () => undefined),
    );
    const [inner, outer] = ended;
    expect(inner.name).toBe('inner');
    expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
  });

  it('a throw is recorded (status, error type) and rethrown', async () => {
    await expect(
      inSpan('engine transcribe', {}, async () => {
        throw new RangeError('no');
      }),
    ).rejects.toThrow('no');
    expect(ended[0].status.code).toBe(SpanStatusCode.ERROR);
    expect(ended[0].attributes['error.type']).toBe('RangeError');
  });

  it('a finished span is recorded under an explicit parent with the times reported', async () => {
    await inSpan('engine transcribe', { parent: contextOf(TRACEPARENT) }, async () => {
      const parent = context.active();
      // As a chunk message is handled: outside the engine span's context.
      await context.with(ROOT_CONTEXT, async () =>
        recordFinishedSpan(
          'engine chunk',
          parent,
          { startedAt: 1_700_000_000_000, endedAt: 1_700_000_001_500 },
          {
            'audio.offset_seconds': 2.5,
          },
        ),
      );
    });
    const [chunk, engine] = ended;
    expect(chunk.name).toBe('engine chunk');
    expect(chunk.parentSpanContext?.spanId).toBe(engine.spanContext().spanId);
    expect(chunk.startTime).toEqual([1_700_000_000, 0]);
    expect(chunk.endTime).toEqual([1_700_000_001, 500_000_000]);
    expect(chunk.attributes['audio.offset_seconds']).toBe(2.5);
    expect(trace.getSpan(ROOT_CONTEXT)).toBeUndefined();
  });
});
