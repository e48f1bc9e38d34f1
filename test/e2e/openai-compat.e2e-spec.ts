import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import OpenAI, { AuthenticationError, BadRequestError, RateLimitError, toFile } from 'openai';
import { expectMatchesSpec } from '../support/openapi-contract';
import { TEST_AUDIO_DIR } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload, waitForTerminal } from '../support/transcriptions';

const GO_FORWARD = join(TEST_AUDIO_DIR, 'pocketsphinx/goforward.wav'); // 2.786 s: "go forward ten meters"
const NOT_AUDIO = join(__dirname, 'openai-compat.e2e-spec.ts');

/** The app listening on a loopback port, and an official OpenAI client pointed at it. */
async function listening(t: TestApp): Promise<string> {
  const port = await t.listeningPort();
  return `http://127.0.0.1:${port}/v1`;
}

/**
 * For refusals answered before the body is read: a body this small is written at once, so the client never
 * races the server's early answer (and `Connection: close`) with a write (EPIPE).
 */
const tinyFile = () => toFile(Buffer.from('RIFF'), 'tiny.wav');

const sdk = (baseURL: string, apiKey: string): OpenAI => new OpenAI({ apiKey, baseURL, maxRetries: 0 });

/**
 * The OpenAI route POST /v1/audio/transcriptions, driven by the real `openai` package, over the normal job
 * pipeline (same billing, the job listed) with errors in OpenAI's shape.
 */
describe('OpenAI-compatible POST /v1/audio/transcriptions', () => {
  let t: TestApp;
  let baseURL: string;
  beforeAll(async () => {
    t = await startTestApp();
    baseURL = await listening(t);
  });
  afterAll(() => t.close());

  async function balance(apiKey: string) {
    const response = await t.http().get('/v1/account/balance').set(bearer(apiKey));
    expectMatchesSpec(response, 'getBalance');
    return response.body.data as { balance: number; freeTranscriptionsRemaining: number };
  }

  async function listed(apiKey: string) {
    const response = await t.http().get('/v1/transcriptions?limit=100').set(bearer(apiKey));
    expectMatchesSpec(response, 'listTranscriptions');
    return response.body.data as Array<{ id: string; model: string; status: string }>;
  }

  it('answers every response_format through the SDK; each answer is a job listed with the mapped tier', async () => {
    const workspace = await t.createWorkspace({ name: 'OpenAI formats' });
    const client = sdk(baseURL, workspace.apiKey);
    const file = () => createReadStream(GO_FORWARD);

    const json = await client.audio.transcriptions.create({ file: file(), model: 'whisper-1' });
    expect(json.text.toLowerCase()).toContain('forward');

    const text = await client.audio.transcriptions.create({
      file: file(),
      model: 'whisper-1',
      response_format: 'text',
      language: 'en',
      prompt: 'Robot commands.',
      temperature: 0.2,
    });
    expect(text.trim()).toBe(json.text.trim());

    // A tier name is itself: this job runs (and is billed) on premium.
    const srt = await client.audio.transcriptions.create({
      file: file(),
      model: 'premium',
      response_format: 'srt',
    });
    expect(srt).toMatch(/^1\r?\n00:00:0\d,\d{3} --> 00:00:0\d,\d{3}\r?\n.*forward/is);

    const vtt = await client.audio.transcriptions.create({
      file: file(),
      model: 'whisper-1',
      response_format: 'vtt',
    });
    expect(vtt).toMatch(/^WEBVTT\r?\n\r?\n[\s\S]*00:00:0\d\.\d{3} --> [\s\S]*forward/i);

    const verbose = await client.audio.transcriptions.create({
      file: file(),
      model: 'whisper-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
    });
    expect(verbose).toMatchObject({ task: 'transcribe', language: 'english', text: json.text });
    expect(verbose.duration).toBeCloseTo(2.786, 1);
    expect(verbose.words?.map((word) => word.word.toLowerCase())).toContain('forward');
    for (const word of verbose.words ?? []) expect(word.end).toBeGreaterThanOrEqual(word.start);
    expect(verbose.segments?.length).toBeGreaterThan(0);
    expect(verbose.segments?.[0]).toMatchObject({
      id: 0,
      tokens: [],
      temperature: 0,
      no_speech_prob: 0,
      seek: expect.any(Number),
      avg_logprob: expect.any(Number),
      compression_ratio: expect.any(Number),
    });
    expect(verbose.segments?.map((segment) => segment.text.trim()).join(' ')).toBe(json.text.trim());

    // Segments only (OpenAI's default granularity): no words.
    const segmentsOnly = await client.audio.transcriptions.create({
      file: file(),
      model: 'whisper-1',
      response_format: 'verbose_json',
    });
    expect(segmentsOnly.words).toBeUndefined();
    expect(segmentsOnly.segments?.length).toBeGreaterThan(0);

    const jobs = await listed(workspace.apiKey);
    expect(jobs).toHaveLength(6);
    expect(jobs.every((job) => job.status === 'completed')).toBe(true);
    expect(jobs.map((job) => job.model).sort()).toEqual([
      'premium',
      'standard',
      'standard',
      'standard',
      'standard',
      'standard',
    ]);
  }, 180_000);

  it('bills like an upload: the free transcription first, then the same charge as POST /v1/transcriptions', async () => {
    const workspace = await t.createWorkspace({
      name: 'OpenAI billing',
      balanceEur: 5,
      freeTranscriptions: 1,
    });
    const start = await balance(workspace.apiKey);

    // Raw HTTP here, so the success answer is checked against openapi.yaml too.
    const first = await t
      .http()
      .post('/v1/audio/transcriptions')
      .set(bearer(workspace.apiKey))
      .field('model', 'whisper-1')
      .field('response_format', 'text')
      .attach('file', GO_FORWARD);
    expectMatchesSpec(first, 'createOpenAiTranscription');
    expect(first.status).toBe(200);
    expect(first.text.toLowerCase()).toContain('forward');
    const afterFree = await balance(workspace.apiKey);
    expect(afterFree).toEqual({ ...start, freeTranscriptionsRemaining: 0 });

    await sdk(baseURL, workspace.apiKey).audio.transcriptions.create({
      file: createReadStream(GO_FORWARD),
      model: 'whisper-1',
    });
    const afterCompat = await balance(workspace.apiKey);
    const compatCharge = afterFree.balance - afterCompat.balance;
    expect(compatCharge).toBeGreaterThan(0);

    const created = await upload(t, workspace.apiKey, GO_FORWARD, { model: 'standard' });
    expect((await waitForTerminal(t, workspace.apiKey, created.body.data.id as string)).status).toBe(
      'completed',
    );
    const afterUpload = await balance(workspace.apiKey);
    expect(afterCompat.balance - afterUpload.balance).toBeCloseTo(compatCharge, 10);
  }, 120_000);

  it('refuses a bad key, a file that is not audio and an unknown model in OpenAI’s shape, creating no job', async () => {
    const workspace = await t.createWorkspace({ name: 'OpenAI errors' });
    const start = await balance(workspace.apiKey);

    const badKey = sdk(baseURL, 'sk-not-a-key-of-this-service');
    const refused = await badKey.audio.transcriptions
      .create({ file: await tinyFile(), model: 'whisper-1' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
    const raw401 = await t
      .http()
      .post('/v1/audio/transcriptions')
      .set(bearer('sk-not-a-key-of-this-service'))
      .field('model', 'whisper-1')
      .field('response_format', 'json');
    expectMatchesSpec(raw401, 'createOpenAiTranscription');
    expect(raw401.status).toBe(401);
    expect((refused as AuthenticationError).message).toContain(raw401.body.error.message as string);

    const client = sdk(baseURL, workspace.apiKey);
    const notAudio = await client.audio.transcriptions
      .create({ file: createReadStream(NOT_AUDIO), model: 'whisper-1' })
      .catch((error: unknown) => error);
    expect(notAudio).toBeInstanceOf(BadRequestError);
    expect(notAudio).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'file' });
    const raw400 = await t
      .http()
      .post('/v1/audio/transcriptions')
      .set(bearer(workspace.apiKey))
      .field('model', 'whisper-1')
      .attach('file', NOT_AUDIO);
    expectMatchesSpec(raw400, 'createOpenAiTranscription');
    expect(raw400.body).toEqual({
      error: {
        message: expect.any(String),
        type: 'invalid_request_error',
        param: 'file',
        code: 'invalid_file_format',
      },
    });

    const unknownModel = await client.audio.transcriptions
      .create({ file: createReadStream(GO_FORWARD), model: 'gpt-4o-transcribe' })
      .catch((error: unknown) => error);
    expect(unknownModel).toBeInstanceOf(BadRequestError);
    expect(unknownModel).toMatchObject({ code: 'model_not_found', param: 'model' });

    expect(await listed(workspace.apiKey)).toEqual([]);
    expect(await balance(workspace.apiKey)).toEqual(start);
  }, 60_000);

  it('answers no money as 429 insufficient_quota, which the SDK must not retry', async () => {
    const broke = await t.createWorkspace({ name: 'OpenAI broke', balanceEur: 0, freeTranscriptions: 0 });
    const refused = await sdk(baseURL, broke.apiKey)
      .audio.transcriptions.create({ file: await tinyFile(), model: 'whisper-1' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused).toMatchObject({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota' });
    const raw = await t
      .http()
      .post('/v1/audio/transcriptions')
      .set(bearer(broke.apiKey))
      .field('model', 'whisper-1')
      .field('response_format', 'json');
    expectMatchesSpec(raw, 'createOpenAiTranscription');
    expect(raw.headers['x-should-retry']).toBe('false');
    expect(await listed(broke.apiKey)).toEqual([]);
  }, 30_000);

  describe('with OPENAI_SYNC_MAX_DURATION_SECONDS=1', () => {
    let short: TestApp;
    let shortURL: string;
    beforeAll(async () => {
      // A small rate limit too: its 429 is refused by middleware, before the route's own error filter.
      short = await startTestApp({
        OPENAI_SYNC_MAX_DURATION_SECONDS: '1',
        RATE_LIMIT_AUTHENTICATED_PER_MINUTE: '3',
      });
      shortURL = await listening(short);
    });
    afterAll(() => short.close());

    it('refuses a longer file before a job exists, pointing at the async API; nothing is charged', async () => {
      const workspace = await short.createWorkspace({ name: 'OpenAI too long', freeTranscriptions: 1 });
      const tooLong = await sdk(shortURL, workspace.apiKey)
        .audio.transcriptions.create({ file: createReadStream(GO_FORWARD), model: 'whisper-1' })
        .catch((error: unknown) => error);
      expect(tooLong).toBeInstanceOf(BadRequestError);
      expect(tooLong).toMatchObject({ code: 'audio_too_long', param: 'file' });
      expect((tooLong as BadRequestError).message).toContain('POST /v1/transcriptions');

      const jobs = await short.http().get('/v1/transcriptions').set(bearer(workspace.apiKey));
      expectMatchesSpec(jobs, 'listTranscriptions');
      expect(jobs.body.data).toEqual([]);
      const after = await short.http().get('/v1/account/balance').set(bearer(workspace.apiKey));
      expect(after.body.data.freeTranscriptionsRemaining).toBe(1);

      // The key's fourth request within the minute.
      const limited = await short
        .http()
        .post('/v1/audio/transcriptions')
        .set(bearer(workspace.apiKey))
        .field('model', 'whisper-1')
        .field('response_format', 'json');
      expectMatchesSpec(limited, 'createOpenAiTranscription');
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }, 60_000);
  });
});
