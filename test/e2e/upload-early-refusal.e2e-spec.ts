import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { listenWithReadCounter, startStalledUpload, streamedUpload } from '../support/early-refusal';
import { startTestApp, TestApp } from '../support/test-app';
import { StorageConfig } from '../../src/storage/storage.config';

const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;

/** 500 MB of file plus its multipart envelope: within the limit as declared. */
const DECLARED_BYTES = 500_000_000;
/** A refused upload must be answered long before this much is sent. */
const GIVE_UP_AFTER_BYTES = 64 * 1024 * 1024;
/** What the server may have read of the body before answering: the head and what the socket buffered. */
const MAX_SERVER_READ_BYTES = 8 * 1024 * 1024;

/**
 * Authentication, the billing pre-check, an Idempotency-Key in flight and a declared size
 * over the limit are answered before the body is read, so a 500 MB upload that is refused is not streamed
 * to storage first. Each case streams a generated 500 MB body and stops sending once answered.
 */
describe('POST /v1/transcriptions refuses before reading the body', () => {
  let t: TestApp;
  let port: number;
  let bytesReadFor: (marker: string) => number | undefined;
  let apiKey: string;
  let workspaceId: string;
  let brokeKey: string;

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    ({ port, bytesReadFor } = await listenWithReadCounter(t.app.getHttpServer() as Server));
    ({ apiKey, workspaceId } = await t.createWorkspace({ name: 'Early', balanceEur: 5 }));
    ({ apiKey: brokeKey } = await t.createWorkspace({
      name: 'Early broke',
      balanceEur: 0,
      freeTranscriptions: 0,
    }));
  });
  afterAll(() => t.close());

  const storedUploads = (): number => {
    const dir = join(t.config.get(StorageConfig).STORAGE_DIR, 'uploads');
    if (!existsSync(dir)) return 0;
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
      .length;
  };

  async function refused(headers: Record<string, string>, declared = DECLARED_BYTES) {
    const marker = randomUUID();
    const before = storedUploads();
    const outcome = await streamedUpload(
      port,
      { ...headers, 'x-test-marker': marker },
      declared,
      GIVE_UP_AFTER_BYTES,
    );
    const serverRead = bytesReadFor(marker);
    expect(serverRead).toBeDefined();
    expect(serverRead).toBeLessThan(MAX_SERVER_READ_BYTES);
    expect(outcome.clientBytesSent).toBeLessThan(GIVE_UP_AFTER_BYTES);
    expect(outcome.headers.connection).toBe('close');
    expect(outcome.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(storedUploads()).toBe(before);
    return { ...outcome, json: JSON.parse(outcome.body) as { type: string; status: number } };
  }

  it('402 insufficient-balance before the body (no free transcription, balance below the minimum)', async () => {
    const outcome = await refused({ Authorization: `Bearer ${brokeKey}` });
    expect(outcome.status).toBe(402);
    expect(outcome.json.type).toBe(problem('insufficient-balance'));
  });

  it('409 idempotency-key-in-flight before the body, while the first upload with the key still streams', async () => {
    const key = randomUUID();
    // The first upload: its head and some bytes are sent, then it stalls (a slow client), the claim held.
    const first = startStalledUpload(
      port,
      { Authorization: `Bearer ${apiKey}`, 'Idempotency-Key': key },
      DECLARED_BYTES,
    );
    // Its claim is taken before its body is read; its file is being written once the body streams.
    const baseline = storedUploads();
    for (let polls = 0; polls < 200 && storedUploads() === baseline; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const claims = await t.app
      .get(DataSource)
      .query<unknown[]>(
        `SELECT 1 FROM idempotency_records WHERE workspace_id = $1 AND key = $2 AND state = 'in-flight'`,
        [workspaceId, key],
      );
    expect(claims).toHaveLength(1);
    const outcome = await refused({ Authorization: `Bearer ${apiKey}`, 'Idempotency-Key': key });
    expect(outcome.status).toBe(409);
    expect(outcome.json.type).toBe(problem('idempotency-key-in-flight'));
    expect(outcome.headers['retry-after']).toBe('1');
    first.destroy();
    // The aborted first upload removes its partial file.
    for (let polls = 0; polls < 200 && storedUploads() !== baseline; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(storedUploads()).toBe(baseline);
  });

  it('422 file-too-large before the body when the declared length is over the limit', async () => {
    const outcome = await refused({ Authorization: `Bearer ${apiKey}` }, 600_000_000);
    expect(outcome.status).toBe(422);
    expect(outcome.json.type).toBe(problem('file-too-large'));
  });

  it('401 before the body for a bad credential', async () => {
    const marker = randomUUID();
    const outcome = await streamedUpload(
      port,
      { Authorization: 'Bearer svc_live_not-a-key', 'x-test-marker': marker },
      DECLARED_BYTES,
      GIVE_UP_AFTER_BYTES,
    );
    expect(outcome.status).toBe(401);
    expect(outcome.clientBytesSent).toBeLessThan(GIVE_UP_AFTER_BYTES);
  });
});
