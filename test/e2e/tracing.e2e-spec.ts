import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { eventually } from '../support/eventually';
import { expectWebhookMatchesSpec } from '../support/openapi-contract';
import { OtlpReceiver, traceTree, type ReceivedSpan } from '../support/otlp-receiver';
import { freePort, ServiceProcess } from '../support/service-process';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

/** OTLP's SpanKind numbers. */
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

/** A webhook receiver on loopback: keeps every request (headers, raw body), answers 200. */
class WebhookReceiver {
  readonly received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  private server!: Server;

  async start(): Promise<this> {
    this.server = createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        this.received.push({ headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * An API process and a worker process of one deployment (own Redis prefix), with `env` on both; each is put in
 * `started` before it boots, so that it is stopped even when the boot fails.
 */
async function startDeployment(
  env: Record<string, string>,
  started: ServiceProcess[],
): Promise<{ api: ServiceProcess; worker: ServiceProcess; url: string }> {
  const prefix = `stt-test-tracing-${randomUUID()}`;
  const port = await freePort();
  // One after the other: two boots at once on a busy 2-core machine can outlast the start-up wait.
  const api = new ServiceProcess({
    ROLE: 'api',
    PORT: String(port),
    REDIS_PREFIX: prefix,
    OTEL_SERVICE_NAME: 'stt-api',
    ...env,
  });
  started.push(api);
  await api.start();
  const worker = new ServiceProcess({
    ROLE: 'worker',
    REDIS_PREFIX: prefix,
    OTEL_SERVICE_NAME: 'stt-worker',
    ...env,
  });
  started.push(worker);
  await worker.start();
  return { api, worker, url: `http://127.0.0.1:${port}` };
}

/**
 * One job is one trace (issue 34): the upload's request, the hand-over to the queue, the worker's job, the
 * engine's run with a span per recognised chunk, and the webhook delivery, across an API process and a worker
 * process, exported over OTLP/HTTP to a receiver this test runs; an incoming `traceparent` is the trace's
 * parent, and the webhook request carries the trace on. With tracing switched off nothing is exported.
 */
describe('Tracing (OpenTelemetry, OTLP/HTTP)', () => {
  let provisioning: TestApp;
  let apiKey: string;
  let database: DataSource;

  beforeAll(async () => {
    provisioning = await startTestApp({ ROLE: 'api' });
    ({ apiKey } = await provisioning.createWorkspace({ name: 'Tracing', balanceEur: 1 }));
    database = provisioning.app.get(DataSource);
  });
  afterAll(() => provisioning.close());

  /** Registers a webhook, uploads a clip with an incoming traceparent, waits for its end and its webhook. */
  async function uploadAndWait(
    url: string,
    hooks: WebhookReceiver,
    traceparent: string,
  ): Promise<{ id: string; text: string; secret: string }> {
    const hook = await request(url)
      .post('/v1/webhooks')
      .set(bearer(apiKey))
      .send({ url: hooks.url, events: ['transcription.completed'] });
    expect(hook.status).toBe(201);
    const created = await request(url)
      .post('/v1/transcriptions')
      .set(bearer(apiKey))
      .set('traceparent', traceparent)
      .attach('file', testAudio('pocketsphinx/goforward.wav'));
    expect(created.status).toBe(202);
    const id = created.body.data.id as string;
    const done = await eventually(
      `transcription ${id} completed`,
      async () => {
        const answer = await request(url).get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
        return answer.body.data.status === 'completed' ? answer.body.data : null;
      },
      120_000,
    );
    await eventually('the webhook delivered', async () => hooks.received.length > 0, 60_000);
    // The endpoint is this test's only one: later uploads of the workspace do not reach this receiver.
    await request(url).delete(`/v1/webhooks/${hook.body.data.id}`).set(bearer(apiKey)).expect(204);
    return { id, text: done.resultText as string, secret: hook.body.data.secret as string };
  }

  describe('on (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
    const collector = new OtlpReceiver();
    const hooks = new WebhookReceiver();
    const started: ServiceProcess[] = [];
    let deployment: Awaited<ReturnType<typeof startDeployment>>;
    const traceId = randomBytes(16).toString('hex');
    const incomingSpanId = randomBytes(8).toString('hex');
    let job: { id: string; text: string; secret: string };
    let spans: ReceivedSpan[];

    beforeAll(async () => {
      await Promise.all([collector.start(), hooks.start()]);
      const otel = {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        // Spans leave in batches every 200 ms rather than every 5 s: the test waits less.
        OTEL_BSP_SCHEDULE_DELAY: '200',
      };
      deployment = await startDeployment(otel, started);
      job = await uploadAndWait(deployment.url, hooks, `00-${traceId}-${incomingSpanId}-01`);
      // Complete: the delivery's span is the last of the job's; every parent of the trace has arrived.
      spans = await eventually(
        'the job’s spans, the webhook delivery’s included, at the receiver',
        async () => {
          const trace = collector.trace(traceId);
          const ids = new Set(trace.map((span) => span.spanId));
          const delivered = trace.some((span) => span.name === 'process webhook-deliveries');
          const linked = trace.every(
            (span) => span.parentSpanId === incomingSpanId || ids.has(span.parentSpanId),
          );
          return delivered && linked ? trace : null;
        },
        30_000,
      );
      if (process.env.STT_PRINT_TRACE) process.stderr.write(`\n${traceTree(spans)}\n`);
    });
    afterAll(async () => {
      await Promise.all(started.map((service) => service.stop()));
      await Promise.all([collector.stop(), hooks.stop()]);
    });

    it('continues the incoming traceparent: one trace across the API, the worker, the engine and the delivery', () => {
      // The upload's server span is the incoming context's child; the one span whose parent is not in the set.
      const roots = spans.filter((span) => span.parentSpanId === incomingSpanId);
      expect(roots).toEqual([
        expect.objectContaining({
          kind: SERVER,
          service: 'stt-api',
          attributes: expect.objectContaining({ 'url.path': '/v1/transcriptions' }),
        }),
      ]);
      const byId = new Map(spans.map((span) => [span.spanId, span]));
      const parentOf = (span: ReceivedSpan): ReceivedSpan | undefined => byId.get(span.parentSpanId);
      const one = (name: string): ReceivedSpan => {
        const named = spans.filter((span) => span.name === name);
        expect(named).toHaveLength(1);
        return named[0];
      };

      const send = one('send transcriptions');
      expect(send).toMatchObject({ kind: PRODUCER, service: 'stt-api' });
      expect(send.attributes['messaging.message.id']).toBe(job.id);
      // The hand-over is under the upload's request (its server span or a span inside it).
      let ancestor = parentOf(send);
      while (ancestor && ancestor !== roots[0]) ancestor = parentOf(ancestor);
      expect(ancestor).toBe(roots[0]);

      const processing = one('process transcriptions');
      expect(processing).toMatchObject({ kind: CONSUMER, service: 'stt-worker' });
      expect(processing.attributes['transcription.id']).toBe(job.id);
      expect(parentOf(processing)).toBe(send);

      const engine = one('engine transcribe');
      expect(parentOf(engine)).toBe(processing);
      const chunks = spans.filter((span) => span.name === 'engine chunk');
      expect(chunks.length).toBeGreaterThan(0);
      for (const chunk of chunks) {
        expect(parentOf(chunk)).toBe(engine);
        expect(chunk.attributes['audio.duration_seconds']).toEqual(expect.any(Number));
      }

      const delivery = one('process webhook-deliveries');
      expect(delivery).toMatchObject({ kind: CONSUMER, service: 'stt-worker' });
      expect(parentOf(delivery)).toBe(processing);

      // Instrumentations' spans (PostgreSQL, Redis) inside the job are in the same trace too.
      expect(
        spans.some(
          (span) =>
            span.attributes['db.system.name'] === 'postgresql' ||
            span.attributes['db.system'] === 'postgresql',
        ),
      ).toBe(true);
      expect(
        spans.some(
          (span) => span.attributes['db.system.name'] === 'redis' || span.attributes['db.system'] === 'redis',
        ),
      ).toBe(true);
    });

    it('the webhook request carries the trace on: its traceparent is the delivery span', () => {
      const delivery = spans.find((span) => span.name === 'process webhook-deliveries')!;
      expect(hooks.received[0].headers.traceparent).toBe(`00-${traceId}-${delivery.spanId}-01`);
      expectWebhookMatchesSpec(hooks.received[0], 'transcription.completed');
    });

    it("log lines of the job's work carry its trace_id", () => {
      const lines = deployment.worker.output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const startLine = lines.find((line) =>
        String(line.msg).includes(`Transcription ${job.id} attempt 1 started`),
      );
      expect(startLine).toMatchObject({
        trace_id: traceId,
        span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      });
      const spanIds = new Set(spans.map((span) => span.spanId));
      expect(spanIds.has(startLine!.span_id as string)).toBe(true);
    });

    it('spans carry no transcript text, no API key, no webhook secret', () => {
      const exported = JSON.stringify(collector.spans).toLowerCase();
      expect(job.text).toMatch(/forward/i);
      const words = job.text
        .toLowerCase()
        .split(/\W+/)
        .filter((word) => word.length >= 5);
      expect(words.filter((word) => exported.includes(word))).toEqual([]);
      expect({
        apiKey: exported.includes(apiKey.toLowerCase()),
        secret: exported.includes(job.secret.toLowerCase()),
      }).toEqual({
        apiKey: false,
        secret: false,
      });
    });
  });

  describe('off (OTEL_SDK_DISABLED=true, even with an endpoint set)', () => {
    const collector = new OtlpReceiver();
    const hooks = new WebhookReceiver();
    const started: ServiceProcess[] = [];
    let deployment: Awaited<ReturnType<typeof startDeployment>>;
    const traceId = randomBytes(16).toString('hex');
    let job: { id: string };

    beforeAll(async () => {
      await Promise.all([collector.start(), hooks.start()]);
      deployment = await startDeployment(
        {
          OTEL_SDK_DISABLED: 'true',
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '200',
        },
        started,
      );
      job = await uploadAndWait(deployment.url, hooks, `00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    });
    afterAll(async () => {
      // Stopped first: a process flushes what it buffered on the way out, which would reach the receiver.
      await Promise.all(started.map((service) => service.stop()));
      await Promise.all([collector.stop(), hooks.stop()]);
    });

    it('exports nothing, stores no trace context, sends no traceparent and logs no trace_id', async () => {
      expect(hooks.received[0].headers.traceparent).toBeUndefined();
      const [row] = await database.query<Array<{ traceparent: string | null }>>(
        'SELECT traceparent FROM transcriptions WHERE id = $1',
        [job.id],
      );
      expect(row.traceparent).toBeNull();
      expect(`${deployment.api.output}${deployment.worker.output}`).not.toContain('trace_id');
      // The processes' exit would flush any buffered span: nothing arrives even then.
      await Promise.all([deployment.api.stop(), deployment.worker.stop()]);
      expect(collector.requests).toEqual([]);
    });
  });
});
