import { randomUUID } from 'node:crypto';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testAudio } from '../support/shared-paths';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload } from '../support/transcriptions';

const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;

/** Everything POST /v1/transcriptions refuses, and the shape of what it accepts. No job needs to run. */
describe('POST /v1/transcriptions: acceptance and refusals', () => {
  let t: TestApp;
  let apiKey: string;
  let workspaceId: string;
  const wav = testAudio('pocketsphinx/goforward.wav');

  beforeAll(async () => {
    // API role only: these tests are about the upload; no worker picks the jobs up.
    t = await startTestApp({ ROLE: 'api' });
    ({ apiKey, workspaceId } = await t.createWorkspace({ name: 'Uploads', balanceEur: 5 }));
  });
  afterAll(() => t.close());

  // "At once" means without waiting for the engine: this app has no worker, so the answer can only be the
  // queued job (upload latency is measured in bench/upload.ts, not by a timed test).
  it('answers 202 with the queued job without waiting for the engine', async () => {
    const response = await upload(t, apiKey, wav, { model: 'premium', language: 'en' });
    expect(response.status).toBe(202);
    expect(response.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'queued',
      model: 'premium',
      originalFileName: 'goforward.wav',
      createdOn: expect.any(String),
      progress: 0,
      estimatedCost: 0, // the workspace's first job takes a free transcription
    });
    const detail = await t.http().get(`/v1/transcriptions/${response.body.data.id}`).set(bearer(apiKey));
    expect(detail.body.data).toMatchObject({
      status: 'queued',
      mimeType: 'audio/wav',
      fileSize: statSync(wav).size,
      language: 'en',
      directoryId: workspaceId,
      resultText: null,
      resultJson: null,
    });
    expectMatchesSpec(detail, 'getTranscription');
  });

  it.each([
    ['openai-whisper/jfk.flac', 'audio/flac'],
    ['coqui-stt/LDC93S1_opus.opus', 'audio/ogg'],
    ['kaldi-gstreamer-server/test_2lauset.ogg', 'audio/ogg'],
    ['faster-whisper/multilingual.mp3', 'audio/mpeg'],
    ['lhotse/big_buck_bunny_small.mp4', 'video/mp4'],
  ])('detects %s as %s from its bytes', async (clip, mimeType) => {
    const response = await upload(t, apiKey, testAudio(clip));
    expect(response.status).toBe(202);
    const detail = await t.http().get(`/v1/transcriptions/${response.body.data.id}`).set(bearer(apiKey));
    expect(detail.body.data.mimeType).toBe(mimeType);
  });

  it('judges by content, not by file name', async () => {
    const text = join(tmpdir(), `${randomUUID()}.mp3`);
    writeFileSync(text, 'this is not audio at all, just text pretending to be an mp3\n'.repeat(50));
    const response = await upload(t, apiKey, text);
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('unsupported-format'));
  });

  it('refuses the malformed evil.wav as unsupported-format', async () => {
    const response = await upload(t, apiKey, testAudio('pocketsphinx/evil.wav'));
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('unsupported-format'));
  });

  it('400 missing-file without a file part', async () => {
    const response = await t.http().post('/v1/transcriptions').set(bearer(apiKey)).field('model', 'standard');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe(problem('missing-file'));
    expectMatchesSpec(response, 'createTranscription');
  });

  it('415 for a body that is neither multipart nor JSON (JSON is the audio_url form)', async () => {
    const response = await t
      .http()
      .post('/v1/transcriptions')
      .set(bearer(apiKey))
      .set('Content-Type', 'text/plain')
      .send('file=x');
    expect(response.status).toBe(415);
    expectMatchesSpec(response, 'createTranscription');
  });

  it.each(['enterprise', 'PREMIUM', ''])('422 invalid-model for model=%j', async (model) => {
    const response = await upload(t, apiKey, wav, { model });
    if (model === '') {
      expect(response.status).toBe(202);
      expect(response.body.data.model).toBe('standard');
      return;
    }
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('invalid-model'));
  });

  it.each([
    [{ num_speakers: '2', min_speakers: '1', max_speakers: '3' }],
    [{ min_speakers: '2' }],
    [{ max_speakers: '2' }],
    [{ min_speakers: '3', max_speakers: '2' }],
    [{ num_speakers: '0' }],
    [{ num_speakers: '51' }],
    [{ num_speakers: 'two' }],
  ])('422 invalid-speaker-hint for %j', async (fields) => {
    const response = await upload(t, apiKey, wav, fields);
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('invalid-speaker-hint'));
  });

  it.each([[{ num_speakers: '50' }], [{ min_speakers: '1', max_speakers: '50' }]])(
    'accepts %j',
    async (fields) => {
      expect((await upload(t, apiKey, wav, fields)).status).toBe(202);
    },
  );

  it.each([
    [{ language: 'xx' }, 'language'],
    [{ vocabulary: '["unterminated' }, 'vocabulary'],
    [{ vocabulary: '[1, 2]' }, 'vocabulary'],
    [{ vocabulary: JSON.stringify(['fine', 'w'.repeat(65)]) }, 'vocabulary'],
    [{ vocabulary: `fine, ${'w'.repeat(65)}` }, 'vocabulary'],
    [{ vocabulary_id: 'not-a-uuid' }, 'vocabulary_id'],
    [{ vocabulary_id: randomUUID() }, 'vocabulary_id'],
    [{ colour: 'blue' }, 'colour'],
  ])('422 validation for %j', async (fields, field) => {
    const response = await upload(t, apiKey, wav, fields);
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('validation'));
    expect(Object.keys(response.body.errors.fieldErrors)).toContain(field);
  });

  it('accepts an inline vocabulary word of exactly 64 characters', async () => {
    const response = await upload(t, apiKey, wav, { vocabulary: JSON.stringify(['w'.repeat(64)]) });
    expect(response.status).toBe(202);
  });

  it('combines a saved vocabulary (either spelling of the field) with inline words', async () => {
    const saved = await t
      .http()
      .post('/v1/vocabularies')
      .set(bearer(apiKey))
      .send({ name: 'v', words: ['Kubernetes', 'gRPC'] });
    for (const field of ['vocabulary_id', 'vocabularyId']) {
      const response = await upload(t, apiKey, wav, {
        [field]: saved.body.data.id,
        vocabulary: 'grpc, Istio',
      });
      expect(response.status).toBe(202);
    }
    const other = await t.createWorkspace({ name: 'Other vocab' });
    const foreign = await upload(t, other.apiKey, wav, { vocabulary_id: saved.body.data.id });
    expect(foreign.status).toBe(422);
  });

  it('vocabulary_id and its alias vocabularyId: the same id (any case) is fine, two different ids are 422', async () => {
    const create = (name: string) =>
      t
        .http()
        .post('/v1/vocabularies')
        .set(bearer(apiKey))
        .send({ name, words: [name] });
    const first = (await create('alpha')).body.data.id as string;
    const second = (await create('beta')).body.data.id as string;
    const same = await upload(t, apiKey, wav, { vocabulary_id: first, vocabularyId: first.toUpperCase() });
    expect(same.status).toBe(202);
    const different = await upload(t, apiKey, wav, { vocabulary_id: first, vocabularyId: second });
    expect(different.status).toBe(422);
    expect(different.body.type).toBe(problem('validation'));
    expect(different.body.errors.fieldErrors.vocabulary_id).toEqual([
      'vocabulary_id and vocabularyId name different vocabularies',
    ]);
  });

  it('402 insufficient-balance with balance, freeRemaining and minimumBalance', async () => {
    const broke = await t.createWorkspace({ name: 'Broke', balanceEur: 0, freeTranscriptions: 0 });
    const response = await upload(t, broke.apiKey, wav);
    expect(response.status).toBe(402);
    expect(response.body).toMatchObject({
      type: problem('insufficient-balance'),
      balance: 0,
      freeRemaining: 0,
      minimumBalance: 0.01,
    });
  });

  it('uses free transcriptions before balance, then refuses when both are gone', async () => {
    const trial = await t.createWorkspace({ name: 'Trial', balanceEur: 0, freeTranscriptions: 2 });
    expect((await upload(t, trial.apiKey, wav)).status).toBe(202);
    expect((await upload(t, trial.apiKey, wav)).status).toBe(202);
    const balance = await t.http().get('/v1/account/balance').set(bearer(trial.apiKey));
    expect(balance.body.data.freeTranscriptionsRemaining).toBe(0);
    expect((await upload(t, trial.apiKey, wav)).status).toBe(402);
  });

  it('rejects an upload declaring more than 500 MB before reading it, with 422 file-too-large', async () => {
    const port = await t.listeningPort();
    const boundary = 'x-boundary';
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/transcriptions',
          headers: {
            Authorization: `Bearer ${apiKey}`,
            'Content-Type': `multipart/form-data; boundary=${boundary}`,
            'Content-Length': String(501_000_000 + 200),
          },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      request.on('error', reject);
      request.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\n\r\n`,
      );
      request.write(Buffer.alloc(64 * 1024));
      // The rest is never sent: the answer must come without it.
    });
    expect(response.status).toBe(422);
    expect(JSON.parse(response.body).type).toBe(problem('file-too-large'));
  });

  it('422 invalid-idempotency-key for a key that is not a UUID', async () => {
    const response = await upload(t, apiKey, wav, {}, { 'Idempotency-Key': 'abc' });
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('invalid-idempotency-key'));
  });

  it('reads the 422 refused before the body even when the body overflows the socket buffers', async () => {
    // The refusal comes before the body and the server closes: a 64 MB body is still being written then.
    const big = join(tmpdir(), `stt-upload-64mb-${process.pid}.wav`);
    writeFileSync(big, Buffer.alloc(64 * 1024 * 1024));
    const response = await upload(t, apiKey, big, {}, { 'Idempotency-Key': 'abc' });
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('invalid-idempotency-key'));
    // Answered before the body: the writing stopped with most of it unsent.
    expect(response.bodyBytesSent).toBeLessThan(statSync(big).size);
    rmSync(big);
  });

  it('replays the same response for the same key and starts no second job', async () => {
    const key = randomUUID();
    const first = await upload(t, apiKey, wav, { model: 'standard' }, { 'Idempotency-Key': key });
    const second = await upload(t, apiKey, wav, { model: 'standard' }, { 'Idempotency-Key': key });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    const list = await t.http().get('/v1/transcriptions?limit=100').set(bearer(apiKey));
    expect(list.body.data.filter((item: { id: string }) => item.id === first.body.data.id)).toHaveLength(1);
  });

  it('422 idempotency-key-mismatch when the key comes back with a different request', async () => {
    const key = randomUUID();
    expect((await upload(t, apiKey, wav, { model: 'standard' }, { 'Idempotency-Key': key })).status).toBe(
      202,
    );
    const other = await upload(t, apiKey, wav, { model: 'premium' }, { 'Idempotency-Key': key });
    expect(other.status).toBe(422);
    expect(other.body.type).toBe(problem('idempotency-key-mismatch'));
  });

  it('the same key in another workspace is a different key', async () => {
    const key = randomUUID();
    const other = await t.createWorkspace({ name: 'Other idem' });
    const a = await upload(t, apiKey, wav, {}, { 'Idempotency-Key': key });
    const b = await upload(t, other.apiKey, wav, {}, { 'Idempotency-Key': key });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.data.id).not.toBe(a.body.data.id);
  });

  it('racing requests with one key create exactly one job; the others replay it or get 409', async () => {
    const key = randomUUID();
    const before = (await t.http().get('/v1/account/usage').set(bearer(apiKey))).status;
    expect(before).toBe(200);
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        upload(t, apiKey, wav, { model: 'standard' }, { 'Idempotency-Key': key }),
      ),
    );
    const accepted = responses.filter((r) => r.status === 202);
    const inFlight = responses.filter((r) => r.status === 409);
    expect(accepted.length + inFlight.length).toBe(6);
    expect(new Set(accepted.map((r) => r.body.data.id)).size).toBe(1);
    for (const r of inFlight) {
      expect(r.body.type).toBe(problem('idempotency-key-in-flight'));
      expect(r.headers['retry-after']).toBeDefined();
    }
  });
});
