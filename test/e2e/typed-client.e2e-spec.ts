/**
 * The integrator's whole flow through the typed client in clients/typescript, against the
 * real service on a loopback port with its in-process worker: upload from a path and from a Blob, wait over
 * SSE and by polling, read, export as text and as docx, iterate the list by cursor, verify a real webhook
 * delivery's signature, and get a typed problem.
 */
import { readFileSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ApiProblemError, TranscriptionClient, verifyWebhook } from '../../clients/typescript/src';
import { startTestApp, TestApp } from '../support/test-app';

const CLIP = join(__dirname, '..', 'fixtures', 'audio', 'whisper.cpp', 'jfk.wav');

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A webhook receiver on loopback that keeps each delivery's headers and raw body. */
function startReceiver(): Promise<{ server: Server; url: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(200).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}/hooks`, deliveries });
    }),
  );
}

async function eventually<T>(read: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Typed client: the integrator flow against the real service', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let client: TranscriptionClient;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const port = await t.listeningPort();
    const workspace = await t.createWorkspace({ name: 'Typed client', balanceEur: 5 });
    client = new TranscriptionClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: workspace.apiKey });
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  it('uploads, waits, reads, exports, iterates and verifies the completed webhook', async () => {
    const { data: hook, error } = await client.api.POST('/v1/webhooks', {
      body: { url: receiver.url, events: ['transcription.completed'] },
    });
    expect(error).toBeUndefined();
    const secret = hook!.data.secret;

    const first = await client.upload({ path: CLIP }, { fields: { language: 'en' } });
    expect(first.status).toBe('queued');
    const done = await client.waitForCompletion(first.id, { timeoutMs: 120_000 });
    expect(done.status).toBe('completed');
    expect(done.resultText?.toLowerCase()).toContain('country');

    const second = await client.upload({ blob: new Blob([readFileSync(CLIP)]), fileName: 'from-blob.wav' });
    const polled = await client.waitForCompletion(second.id, {
      forcePolling: true,
      pollIntervalMs: 250,
      timeoutMs: 120_000,
    });
    expect(polled.status).toBe('completed');
    expect((await client.getTranscription(second.id)).originalFileName).toBe('from-blob.wav');

    const srt = await client.export(first.id, 'srt');
    expect(typeof srt).toBe('string');
    expect(srt).toContain('-->');
    const docx = await client.export(first.id, 'docx');
    expect(
      Buffer.from(await docx.arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');

    const seen: string[] = [];
    for await (const item of client.iterateTranscriptions({ limit: 1 })) seen.push(item.id);
    expect(seen.sort()).toEqual([first.id, second.id].sort());

    const delivery = await eventually(
      () => receiver.deliveries.find((d) => d.body.toString().includes(first.id)),
      30_000,
    );
    const event = verifyWebhook(secret, delivery.headers, delivery.body);
    expect(event.event).toBe('transcription.completed');
    const tampered = Buffer.from(delivery.body.toString().replace('completed', 'complete_'));
    expect(() => verifyWebhook(secret, delivery.headers, tampered)).toThrow();
  }, 240_000);

  it('turns a problem+json answer into a typed ApiProblemError', async () => {
    const missing = client.getTranscription('00000000-0000-4000-8000-000000000000');
    await expect(missing).rejects.toBeInstanceOf(ApiProblemError);
    await expect(missing).rejects.toMatchObject({ status: 404, slug: 'not-found' });
  });
});
