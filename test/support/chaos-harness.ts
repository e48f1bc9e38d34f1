import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import request from 'supertest';
import { expectMatchesSpec } from './openapi-contract';
import { freePort, ServiceProcess } from './service-process';
import { OpenWork, openWork, QueueInspector, waitUntilSettled } from './settled-work';
import { testAudio } from './shared-paths';
import { baseTestEnvironment } from './test-environment';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

export { eventually } from './eventually';

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

/**
 * A workspace through the operator CLI (the compiled one), straight against this run's database; `user` gives its
 * first user an email and a dashboard password.
 */
export function createWorkspace(
  name: string,
  balanceEur: number,
  free = 0,
  user?: { email: string; password: string },
): ChaosWorkspace {
  const userArguments = user ? ['--email', user.email, '--password-stdin'] : [];
  const output = execFileSync(
    'node',
    [
      CLI,
      'workspace:create',
      '--name',
      name,
      '--balance',
      String(balanceEur),
      '--free',
      String(free),
      ...userArguments,
    ],
    {
      env: { ...process.env, ...baseTestEnvironment(), LOG_LEVEL: 'error' },
      encoding: 'utf8',
      input: user ? `${user.password}\n` : undefined,
    },
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

/** POST /v1/transcriptions of a test clip, with a client timeout; the answer is the caller's to check. */
export function uploadClip(apiUrl: string, apiKey: string, clip: string, timeoutMs = 15_000): request.Test {
  return request(apiUrl)
    .post('/v1/transcriptions')
    .set('Authorization', `Bearer ${apiKey}`)
    .attach('file', testAudio(clip))
    .timeout(timeoutMs);
}

/** Uploads the clips one after the other, each answered 202 as the contract says; returns their ids in order. */
export async function queueClips(
  apiUrl: string,
  apiKey: string,
  clips: readonly string[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const clip of clips) {
    const response = await uploadClip(apiUrl, apiKey, clip);
    expect(response.status).toBe(202);
    expectMatchesSpec(response, 'createTranscription');
    ids.push((response.body as { data: { id: string } }).data.id);
  }
  return ids;
}

/** One webhook delivery of a `transcription.completed` event, as PostgreSQL holds it. */
export type CompletedDelivery = {
  transcription_id: string;
  status: string;
  attempts: Array<{ statusCode: number | null }>;
};

/** One charge of the ledger next to the cost recorded on its transcription (micro-EUR, as strings). */
export type Charge = {
  transcription_id: string;
  amount: string;
  cost: string;
};

/** What every chaos spec works with; the connections and processes are closed by the fixture's afterAll. */
export interface ChaosFixture {
  /** This spec's own Redis prefix, whose keys it may delete. */
  readonly prefix: string;
  /** The environment of every service process the spec starts: the prefix plus the spec's own settings. */
  readonly env: Record<string, string>;
  readonly processes: ProcessGroup;
  /** Started in beforeAll unless `startReceiver: false` (then the spec starts it when it wants it up). */
  readonly receiver: WebhookReceiver;
  /** A direct connection to this run's database, open from beforeAll to afterAll. */
  readonly database: Client;
  transcriptionsOf(workspaceId: string): Promise<Array<{ id: string; status: string }>>;
  /** How many of the transcriptions are in each status, e.g. { completed: 8, processing: 2 }. */
  statusCounts(ids: readonly string[]): Promise<Record<string, number>>;
  completedDeliveries(workspaceId: string): Promise<CompletedDelivery[]>;
  charges(workspaceId: string): Promise<Charge[]>;
  /** Read-only view of this spec's Bull queues (connects on first use). */
  readonly queues: QueueInspector;
  /** What could still make the workspace's webhook traffic grow (transcriptions, outbox, deliveries, jobs). */
  openWork(workspaceId: string): Promise<OpenWork>;
  /** Waits until `openWork` is empty: no further webhook request of the workspace can come after that. */
  waitUntilSettled(workspaceId: string, deadlineMs: number): Promise<void>;
}

/**
 * The one set-up of the chaos specs: call it at the top of the describe block. Its beforeAll opens the database
 * connection (and starts the webhook receiver); its afterAll, declared before the spec's own, stops every service
 * process, the receiver and the connection, also when a test failed midway.
 */
export function useChaosFixture(
  name: string,
  options: { env?: Record<string, string>; startReceiver?: boolean } = {},
): ChaosFixture {
  const prefix = chaosRedisPrefix(name);
  const processes = new ProcessGroup();
  const receiver = new WebhookReceiver();
  const queues = new QueueInspector(baseTestEnvironment().REDIS_URL, prefix);
  let database: Client | null = null;
  const connection = (): Client => {
    if (!database) throw new Error('the chaos fixture is used outside its beforeAll/afterAll');
    return database;
  };
  const rows = async <T extends Record<string, unknown>>(sql: string, values: unknown[]): Promise<T[]> =>
    (await connection().query<T>(sql, values)).rows;

  beforeAll(async () => {
    database = await connectDatabase();
    if (options.startReceiver ?? true) await receiver.start();
  });
  afterAll(async () => {
    await processes.stopAll();
    await receiver.stop();
    await queues.close();
    await database?.end();
    database = null;
  });

  return {
    prefix,
    env: { REDIS_PREFIX: prefix, ...options.env },
    processes,
    receiver,
    queues,
    get database() {
      return connection();
    },
    transcriptionsOf: (workspaceId) =>
      rows<{ id: string; status: string }>(
        'SELECT id, status FROM transcriptions WHERE workspace_id = $1 ORDER BY id',
        [workspaceId],
      ),
    statusCounts: async (ids) =>
      Object.fromEntries(
        (
          await rows<{ status: string; count: string }>(
            'SELECT status, count(*) FROM transcriptions WHERE id = ANY($1) GROUP BY status',
            [ids],
          )
        ).map((row) => [row.status, Number(row.count)]),
      ),
    completedDeliveries: (workspaceId) =>
      rows<CompletedDelivery>(
        `SELECT e.data->>'id' AS transcription_id, d.status, d.attempts
           FROM outbox_events e JOIN webhook_deliveries d ON d.event_id = e.id
          WHERE e.workspace_id = $1 AND e.type = 'transcription.completed'`,
        [workspaceId],
      ),
    charges: (workspaceId) =>
      rows<Charge>(
        `SELECT l.transcription_id, l.amount_micro AS amount, t.cost_micro AS cost
           FROM balance_ledger l JOIN transcriptions t ON t.id = l.transcription_id
          WHERE l.workspace_id = $1 AND l.kind = 'charge'`,
        [workspaceId],
      ),
    openWork: (workspaceId) => openWork(rows, queues, workspaceId),
    waitUntilSettled: (workspaceId, deadlineMs) => waitUntilSettled(rows, queues, workspaceId, deadlineMs),
  };
}
