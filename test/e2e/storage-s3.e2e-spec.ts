import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { Transcription } from '../../src/transcriptions/transcription.entity';
import { expectMatchesSpec } from '../support/openapi-contract';
import { startS3Emulator, type S3Emulator } from '../support/s3-emulator';
import { ServiceProcess } from '../support/service-process';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { asBuffer, upload, waitForTerminal } from '../support/transcriptions';

/**
 * STORAGE_DRIVER=s3 end to end against a real S3-protocol server (s3rver on loopback): the API streams the
 * upload into the bucket and nothing into STORAGE_DIR, a separate worker process (own temp folder) downloads
 * it for the engine and removes its copy, DELETE removes the object.
 */
describe('S3 storage (STORAGE_DRIVER=s3)', () => {
  const prefix = `stt-test-s3-${randomUUID()}`;
  let emulator: S3Emulator;
  let t: TestApp;
  let apiKey: string;
  let worker: ServiceProcess | null = null;
  let storageDir: string;
  let workerTmp: string;

  beforeAll(async () => {
    emulator = await startS3Emulator();
    // STORAGE_DIR points at an empty folder that must stay empty: nothing may fall back to local storage.
    storageDir = mkdtempSync(join(tmpdir(), 'stt-s3-e2e-local-'));
    workerTmp = mkdtempSync(join(tmpdir(), 'stt-s3-e2e-worker-tmp-'));
    t = await startTestApp({
      ROLE: 'api',
      REDIS_PREFIX: prefix,
      STORAGE_DIR: storageDir,
      ...emulator.env,
    });
    ({ apiKey } = await t.createWorkspace({ name: 'S3', balanceEur: 1, freeTranscriptions: 0 }));
  });
  afterAll(async () => {
    await worker?.stop();
    await t.close();
    await emulator.stop();
    rmSync(storageDir, { recursive: true, force: true });
    rmSync(workerTmp, { recursive: true, force: true });
  });

  const storageKeyOf = async (id: string): Promise<string> =>
    (await t.app.get(DataSource).getRepository(Transcription).findOneByOrFail({ id })).storageKey ?? '';

  async function statusOf(id: string): Promise<string> {
    const response = await t.http().get(`/v1/transcriptions/${id}/status`).set(bearer(apiKey));
    expectMatchesSpec(response, 'getTranscriptionStatus');
    return response.body.data.status as string;
  }

  it('upload → object in the bucket → worker transcribes from it → DELETE removes it', async () => {
    const created = await upload(t, apiKey, testAudio('faster-whisper/multilingual.mp3'));
    expect(created.status).toBe(202);
    const id = created.body.data.id as string;
    const key = await storageKeyOf(id);
    expect(key).toMatch(/^uploads\//);
    expect(await emulator.keys('uploads/')).toEqual([key]);
    expect(readdirSync(storageDir)).toEqual([]);
    expect(await statusOf(id)).toBe('queued');

    worker = await new ServiceProcess({
      ROLE: 'worker',
      REDIS_PREFIX: prefix,
      STORAGE_DIR: storageDir,
      TMPDIR: workerTmp,
      ...emulator.env,
    }).start();

    // While the engine runs (about a minute of audio), the object is in the bucket and the worker holds
    // its own downloaded copy in its temp folder.
    // 'processing' is set before the download starts, so the copy is looked for on every poll.
    const deadline = Date.now() + 60_000;
    let seenProcessing = false;
    let seenLocalCopy = false;
    let status = await statusOf(id);
    while (status !== 'completed' && status !== 'failed' && Date.now() < deadline) {
      if (status === 'processing') {
        if (!seenProcessing) expect(await emulator.keys('uploads/')).toEqual([key]);
        seenProcessing = true;
        const copies = readdirSync(workerTmp).filter((name) => name.startsWith('stt-object-'));
        expect(copies.length).toBeLessThanOrEqual(1);
        seenLocalCopy ||= copies.length === 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await statusOf(id);
    }
    expect({ seenProcessing, seenLocalCopy }).toEqual({ seenProcessing: true, seenLocalCopy: true });
    const done = await waitForTerminal(t, apiKey, id);
    expect({ status: done.status, error: done.body.data.errorMessage }).toEqual({
      status: 'completed',
      error: null,
    });
    expect(done.body.data.resultText).toBeTruthy();
    // The worker's copy is gone; the object stays until the transcription is deleted.
    expect(readdirSync(workerTmp).filter((name) => name.startsWith('stt-'))).toEqual([]);
    expect(await emulator.keys('uploads/')).toEqual([key]);

    // The player's seek: a byte range read from the bucket, the very bytes uploaded.
    const original = readFileSync(testAudio('faster-whisper/multilingual.mp3'));
    const seek = await t
      .http()
      .get(`/v1/transcriptions/${id}/audio`)
      .set(bearer(apiKey))
      .set('Range', 'bytes=100000-100099')
      .buffer(true)
      .parse(asBuffer);
    expect(seek.status).toBe(206);
    expectMatchesSpec(seek, 'getTranscriptionAudio');
    expect(seek.headers['content-range']).toBe(`bytes 100000-100099/${original.length}`);
    expect((seek.body as Buffer).equals(original.subarray(100000, 100100))).toBe(true);

    const deleted = await t.http().delete(`/v1/transcriptions/${id}`).set(bearer(apiKey));
    expect(deleted.status).toBe(204);
    expect(await emulator.keys('uploads/')).toEqual([]);
    expect(readdirSync(storageDir)).toEqual([]);
  });

  it('a refused upload (not audio) leaves no object in the bucket', async () => {
    const notAudio = join(mkdtempSync(join(tmpdir(), 'stt-s3-e2e-')), 'notes.wav');
    writeFileSync(notAudio, 'this is plain text, not a WAV file\n'.repeat(200));
    const before = await emulator.keys('uploads/');
    const refused = await upload(t, apiKey, notAudio);
    expect(refused.status).toBe(422);
    expect(refused.body.type).toMatch(/\/unsupported-format$/);
    expect(await emulator.keys('uploads/')).toEqual(before);
    rmSync(notAudio, { force: true });
  });

  it('an S3 store that is down: upload and delete answer 503 service-unavailable and change nothing; export still works', async () => {
    // A transcription made while the store was up, finished (as far as export cares) in the database.
    const created = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'));
    expect(created.status).toBe(202);
    const id = created.body.data.id as string;
    const key = await storageKeyOf(id);
    await t.app
      .get(DataSource)
      .getRepository(Transcription)
      .update(
        { id },
        { status: 'completed', progress: 100, resultText: 'go forward ten meters', completedAt: new Date() },
      );

    const down = await startTestApp({
      ROLE: 'api',
      REDIS_PREFIX: prefix,
      ...emulator.env,
      S3_ENDPOINT: 'http://127.0.0.1:9', // discard port: connection refused
    });
    const expectUnavailable = (response: {
      status: number;
      headers: Record<string, string>;
      body: { type: string };
    }) => {
      expect(response.status).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body.type).toMatch(/\/service-unavailable$/);
    };
    try {
      const before = await t.http().get('/v1/transcriptions?limit=100').set(bearer(apiKey));
      const uploaded = await upload(down, apiKey, testAudio('pocketsphinx/goforward.wav'));
      expectUnavailable(uploaded);
      const after = await t.http().get('/v1/transcriptions?limit=100').set(bearer(apiKey));
      expect(after.body.data).toHaveLength(before.body.data.length);

      // The record is kept while its file cannot be removed: the client retries the delete later.
      const deleted = await down.http().delete(`/v1/transcriptions/${id}`).set(bearer(apiKey));
      expectMatchesSpec(deleted, 'deleteTranscription');
      expectUnavailable(deleted);
      const still = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
      expect(still.status).toBe(200);
      expect(await emulator.keys('uploads/')).toContain(key);

      // Exports are rendered from the database: they do not need the store.
      const exported = await down
        .http()
        .get(`/v1/transcriptions/${id}/export?format=txt`)
        .set(bearer(apiKey));
      expectMatchesSpec(exported, 'exportTranscription');
      expect(exported.status).toBe(200);
    } finally {
      await down.close();
    }
    const retried = await t.http().delete(`/v1/transcriptions/${id}`).set(bearer(apiKey));
    expect(retried.status).toBe(204);
    expect(await emulator.keys('uploads/')).not.toContain(key);
  });
});
