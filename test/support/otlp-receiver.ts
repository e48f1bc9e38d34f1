import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: string;
  attributes: Record<string, unknown>;
}

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}

interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        attributes?: OtlpAttribute[];
      }>;
    }>;
  }>;
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [key, Object.values(value)[0]] as [string, unknown]),
  );
}

/**
 * A trace collector as far as the service sees one: OTLP/HTTP with the JSON protocol
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), `POST /v1/traces`, answered 200 with an empty partial-success.
 * Keeps every span received, and every request (whatever its path), so a test can also see that nothing came.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  private server!: Server;

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.requests.push({ path: request.url ?? '/', headers: request.headers });
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        try {
          this.take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
        } catch {
          response.writeHead(400).end();
          return;
        }
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the exporter appends /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private take(body: OtlpExport): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const name = attributesOf(resourceSpans.resource?.attributes)['service.name'];
      const service = typeof name === 'string' ? name : '';
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            startTimeUnixNano: span.startTimeUnixNano,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }
}

/** The trace as an indented tree (children in start order): one line per span, `name  [service]`. */
export function traceTree(spans: ReceivedSpan[]): string {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const span of spans) {
    const parent = ids.has(span.parentSpanId) ? span.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string, depth: number): void => {
    const ordered = (children.get(parent) ?? []).sort((a, b) =>
      BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1,
    );
    for (const span of ordered) {
      lines.push(`${'  '.repeat(depth)}${span.name}  [${span.service}]`);
      walk(span.spanId, depth + 1);
    }
  };
  walk('', 0);
  return lines.join('\n');
}
