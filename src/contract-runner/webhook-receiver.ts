import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkWebhookDelivery, type ContractFinding } from '../openapi/openapi-contract';
import { signWebhookPayload, WEBHOOK_HEADERS } from '../webhooks/webhook-signature';

/** Receivers reject timestamps further than this from their clock (the documented replay window). */
const MAX_CLOCK_SKEW_SECONDS = 5 * 60;

export interface ReceivedDelivery {
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  envelope: { event?: string; timestamp?: string; data?: Record<string, unknown> } | undefined;
  /** Contract findings (headers, envelope schema) and signature findings. */
  findings: ContractFinding[];
  /** Which secret verified `X-Service-Signature` (or the previous signature); undefined when none did. */
  verifiedWith: 'current' | 'previous' | undefined;
}

/**
 * The receiving end of the run's webhook endpoint: answers 200, and checks every delivery as a receiver must
 * (docs/webhooks.md): HMAC-SHA256 of `{timestamp}.{rawBody}` with the endpoint's secret, compared in constant
 * time, the timestamp within 5 minutes, and the envelope and headers against openapi.yaml's `webhooks`.
 */
export class WebhookReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  /** Secrets of the run's endpoint, newest first (a rotation adds one). */
  private readonly secrets: string[] = [];
  private server: Server | undefined;

  constructor(
    private readonly port: number,
    /** The URL the run registers; for `loopback()` the bound port is known only after start(). */
    public publicUrl: string,
    private readonly host?: string,
  ) {}

  /**
   * A receiver of the run's own on 127.0.0.1 and a free port, used when the deployment under test is on this
   * machine (a loopback base URL) and no --webhook-listen is given: it receives deliveries without DNS or a
   * public address, if the deployment accepts private webhook targets (WEBHOOK_ALLOW_PRIVATE_TARGETS=true).
   */
  static async loopback(tag: string): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(0, '', '127.0.0.1');
    await receiver.start();
    const address = receiver.server?.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    receiver.publicUrl = `http://127.0.0.1:${port}/stt-contract/${tag}`;
    return receiver;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        this.deliveries.push(
          inspectDelivery(request.url ?? '/', headers, Buffer.concat(chunks).toString('utf8'), this.secrets),
        );
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      if (this.host) server.listen(this.port, this.host, resolve);
      else server.listen(this.port, resolve);
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  addSecret(secret: string): void {
    this.secrets.unshift(secret);
  }

  /** The first delivery `matches` accepts, waiting up to `timeoutMs`; undefined when none came. */
  async waitFor(
    matches: (delivery: ReceivedDelivery) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ReceivedDelivery | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.deliveries.find(matches);
      if (found || Date.now() > deadline) return found;
      await sleep(100, undefined, { signal });
    }
  }
}

/**
 * What a receiver must check on one delivery: the headers and envelope against openapi.yaml's `webhooks`, the
 * timestamp within 5 minutes of this clock (and equal to the envelope's), and the HMAC-SHA256 signature of
 * `{timestamp}.{rawBody}` with the endpoint's secret (`secrets` newest first).
 */
export function inspectDelivery(
  path: string,
  headers: Record<string, string>,
  rawBody: string,
  secrets: readonly string[],
): ReceivedDelivery {
  let envelope: ReceivedDelivery['envelope'];
  try {
    envelope = JSON.parse(rawBody) as ReceivedDelivery['envelope'];
  } catch {
    envelope = undefined;
  }
  const event = typeof envelope?.event === 'string' ? envelope.event : 'unknown';
  const findings = checkWebhookDelivery({ headers, body: rawBody }, event);
  const timestamp = headers[WEBHOOK_HEADERS.timestamp.toLowerCase()];
  const signature = headers[WEBHOOK_HEADERS.signature.toLowerCase()];
  const previous = headers[WEBHOOK_HEADERS.previousSignature.toLowerCase()];
  let verifiedWith: ReceivedDelivery['verifiedWith'];
  if (timestamp !== undefined) {
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > MAX_CLOCK_SKEW_SECONDS) {
      findings.push({
        path: `header ${WEBHOOK_HEADERS.timestamp}`,
        message: `timestamp ${timestamp} is more than 5 minutes off this machine's clock`,
      });
    }
    if (envelope?.timestamp !== timestamp) {
      findings.push({
        path: '$.timestamp',
        message: `envelope timestamp ${String(envelope?.timestamp)} ≠ header ${timestamp}`,
      });
    }
    const [current, ...older] = secrets;
    if (
      current !== undefined &&
      signatureMatches(signature, signWebhookPayload(current, timestamp, rawBody))
    ) {
      verifiedWith = 'current';
    } else if (
      older.some((secret) =>
        [previous, signature].some((given) =>
          signatureMatches(given, signWebhookPayload(secret, timestamp, rawBody)),
        ),
      )
    ) {
      // Signed with the secret a rotation retired: as X-Service-Signature-Previous during the 24 h overlap, or
      // as X-Service-Signature on a delivery that was already on its way when the secret was rotated.
      verifiedWith = 'previous';
    }
  }
  if (verifiedWith === undefined) {
    findings.push({
      path: `header ${WEBHOOK_HEADERS.signature}`,
      message: `no signature verifies with the endpoint's secret (HMAC-SHA256 of "{timestamp}.{rawBody}")`,
    });
  }
  return { path, headers, rawBody, envelope, findings, verifiedWith };
}

function signatureMatches(given: string | undefined, expectedHex: string): boolean {
  if (given === undefined || !/^[0-9a-f]+$/i.test(given)) return false;
  const a = Buffer.from(given, 'hex');
  const b = Buffer.from(expectedHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
