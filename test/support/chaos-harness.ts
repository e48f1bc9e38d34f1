import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import request from 'supertest';
import { freePort, ServiceProcess } from './service-process';
import { baseTestEnvironment } from './test-environment';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Bounded polling: resolves with the first truthy value of `probe`, or fails naming `what` at the deadline. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  deadlineMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(intervalMs);
  }
  const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
  throw new Error(`${what} did not happen within ${deadlineMs} ms${reason}`);
}

/** A Redis prefix of its own for one chaos spec: its keys can be deleted without touching any other run. */
export function chaosRedisPrefix(name: string): string {
  return `${baseTestEnvironment().REDIS_PREFIX}-chaos-${name}-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under `prefix` (SCAN + DEL; never FLUSHALL: other runs share the server). */
export async function deleteRedisKeys(prefix: string): Promise<number> {
  const redis = new Redis(baseTestEnvironment().REDIS_URL);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) deleted += await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

export interface ChaosWorkspace {
  workspaceId: string;
  apiKey: string;
}

/** A workspace through the operator CLI (the compiled one), straight against this run's database. */
export function createWorkspace(name: string, balanceEur: number, free = 0): ChaosWorkspace {
  const output = execFileSync(
    'node',
    [CLI, 'workspace:create', '--name', name, '--balance', String(balanceEur), '--free', String(free)],
    { env: { ...process.env, ...baseTestEnvironment(), LOG_LEVEL: 'error' }, encoding: 'utf8' },
  );
  const line = output.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as ChaosWorkspace;
}

/** A direct PostgreSQL connection to this run's database (assertions on rows the API does not expose). */
export async function connectDatabase(): Promise<Client> {
  const client = new Client({ connectionString: baseTestEnvironment().DATABASE_URL });
  await client.connect();
  return client;
}

/** Starts processes and remembers them, so afterAll can stop every one even when a test failed midway. */
export class ProcessGroup {
  private readonly processes: ServiceProcess[] = [];

  async api(env: Record<string, string>): Promise<{ process: ServiceProcess; url: string }> {
    const port = await freePort();
    const process = new ServiceProcess({ ...env, ROLE: 'api', PORT: String(port) });
    this.processes.push(process);
    await process.start();
    return { process, url: `http://127.0.0.1:${port}` };
  }

  async worker(env: Record<string, string>): Promise<ServiceProcess> {
    const process = new ServiceProcess({ ...env, ROLE: 'worker' });
    this.processes.push(process);
    return process.start();
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.processes.map((process) => process.stop().catch(() => process.kill())));
  }
}

/** One request as the receiving third party saw it. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: { event: string; data: Record<string, unknown> };
  deliveryId: string;
  arrivedAt: number;
}

/** A webhook receiver on 127.0.0.1 that records every request and answers 204 (or what `answer` says). */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server: Server | null = null;
  answer: (path: string) => number = () => 204;

  async start(port = 0): Promise<this> {
    this.server = createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const path = incoming.url ?? '/';
        this.received.push({
          path,
          headers: incoming.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedWebhook['body'],
          deliveryId: String(incoming.headers['x-service-delivery-id']),
          arrivedAt: Date.now(),
        });
        response.writeHead(this.answer(path)).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}${path}`;
  }

  of(event: string): ReceivedWebhook[] {
    return this.received.filter((received) => received.body.event === event);
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Registers a webhook endpoint through the API; returns its id. */
export async function registerWebhook(
  apiUrl: string,
  apiKey: string,
  url: string,
  events: string[],
): Promise<string> {
  const response = await request(apiUrl)
    .post('/v1/webhooks')
    .set('Authorization', `Bearer ${apiKey}`)
    .send({ url, events });
  if (response.status !== 201) throw new Error(`webhook registration: ${response.status} ${response.text}`);
  return (response.body as { data: { id: string } }).data.id;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: unknown;
}

/**
 * POST of a small file as multipart/form-data over plain node:http. Unlike superagent, it keeps the answer
 * when the server replies before the body is fully sent (an early 401/503) and the write then fails.
 */
export async function rawUpload(
  url: string,
  apiKey: string,
  fileName: string,
  content: Buffer,
  timeoutMs: number,
): Promise<RawResponse> {
  const boundary = `chaos${randomUUID()}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return new Promise<RawResponse>((resolve, reject) => {
    let answered = false;
    const outgoing = httpRequest(
      `${url}/v1/transcriptions`,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${apiKey}`,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(body.length),
        },
        timeout: timeoutMs,
      },
      (incoming) => {
        answered = true;
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = null;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, body: parsed });
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    outgoing.end(body);
  });
}
