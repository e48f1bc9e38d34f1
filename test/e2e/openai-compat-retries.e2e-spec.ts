import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import OpenAI, { toFile } from 'openai';
import { TranscriptionDispatcher } from '../../src/transcriptions/transcription-dispatcher.service';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.786 s: "go forward ten meters"
/**
 * Each try of the SDK gives up after this long. The worker is held until the SDK's last try, so the job
 * outlasts the first two tries. The last try is let through without the SDK's abort signal (see
 * impatientClient): how long the worker needs for 2.8 s of audio on a loaded machine is not this test's
 * subject, and a timeout long enough for the worst case would make every try wait that long.
 */
const CLIENT_TIMEOUT_MS = 4_000;
/**
 * The file as the SDK can send it again: a File (Blob). An fs.ReadStream is sent as a streaming body, and
 * openai@6 never retries those ("streaming body cannot be retried").
 */
const goForward = () => toFile(readFileSync(GO_FORWARD), 'goforward.wav', { type: 'audio/wav' });

/**
 * Retries on the OpenAI route are not billed twice: the official SDK gives up after its timeout and sends the
 * same request again (twice by default). A retry, with or without an Idempotency-Key, attaches to the first
 * job (docs/decisions.md, "OpenAI route: retries attach to the first job"): one job, one charge.
 *
 * The API runs with ROLE=api and one worker (ROLE=worker) shares its Redis prefix; the queue is paused (Bull's
 * pause, in Redis) between tests, so an uploaded job stays queued until the test resumes it: that is what
 * makes the job outlast the client's timeout, without any sleep.
 */
describe('OpenAI-compatible route: SDK retries and Idempotency-Key', () => {
  const prefix = `stt-test-openai-retries-${randomUUID()}`;
  let api: TestApp;
  let baseURL: string;
  let worker: TestApp;
  /** While the queue is paused, no worker takes a job: they wait, queued, until it is resumed. */
  const queue = () => api.app.get(TranscriptionDispatcher).queue;
  const runJobs = () => queue().resume();

  beforeAll(async () => {
    api = await startTestApp({ ROLE: 'api', REDIS_PREFIX: prefix });
    const port = await api.listeningPort();
    baseURL = `http://127.0.0.1:${port}/v1`;
    await queue().pause();
    worker = await startTestApp({ ROLE: 'worker', REDIS_PREFIX: prefix });
  });
  afterEach(() => queue().pause());
  afterAll(async () => {
    await worker.close();
    await api.close();
  });

  async function balance(apiKey: string) {
    const response = await api.http().get('/v1/account/balance').set(bearer(apiKey));
    expectMatchesSpec(response, 'getBalance');
    return response.body.data as { balance: number; freeTranscriptionsRemaining: number };
  }

  async function listed(apiKey: string) {
    const response = await api.http().get('/v1/transcriptions?limit=100').set(bearer(apiKey));
    expectMatchesSpec(response, 'listTranscriptions');
    return response.body.data as Array<{ id: string; status: string; resultText: string | null }>;
  }

  /**
   * The real SDK with a timeout shorter than the job and its default two retries. Its fetch is the global
   * one, watched: it records each try's X-Stainless-Retry-Count and lets the worker run as the last try leaves.
   * The last try goes out without the SDK's abort signal, so it waits for the answer however long the worker
   * takes; the first two still time out and are retried by the SDK itself.
   */
  function impatientClient(apiKey: string, tries: number[]): OpenAI {
    const watchedFetch: typeof fetch = async (url, init) => {
      const retryCount = new Headers(init?.headers).get('x-stainless-retry-count');
      // (The SDK's first fetch is its own probe of `data:,`, without that header.)
      if (retryCount !== null) tries.push(Number(retryCount));
      if (retryCount !== '2') return fetch(url, init);
      await runJobs();
      return fetch(url, { ...init, signal: undefined });
    };
    return new OpenAI({ apiKey, baseURL, timeout: CLIENT_TIMEOUT_MS, maxRetries: 2, fetch: watchedFetch });
  }

  it.each([
    ['without an Idempotency-Key (what the SDK sends by itself)', {}],
    ['with an Idempotency-Key', { 'Idempotency-Key': randomUUID() }],
  ])(
    'a client that times out twice and retries %s makes one job and one charge; its last try gets the text',
    async (_, headers: Record<string, string>) => {
      const workspace = await api.createWorkspace({
        name: 'OpenAI retries',
        balanceEur: 0,
        freeTranscriptions: 3,
      });
      const start = await balance(workspace.apiKey);
      const tries: number[] = [];

      const answer = await impatientClient(workspace.apiKey, tries)
        .audio.transcriptions.create({ file: await goForward(), model: 'whisper-1' }, { headers })
        .catch((error: unknown) => error);

      expect(tries).toEqual([0, 1, 2]); // the SDK gave up twice and sent the request three times
      const jobs = await listed(workspace.apiKey);
      const after = await balance(workspace.apiKey);
      expect({
        answer,
        jobs: jobs.length,
        freeUsed: start.freeTranscriptionsRemaining - after.freeTranscriptionsRemaining,
      }).toEqual({
        answer: { text: expect.stringMatching(/forward/i) },
        jobs: 1,
        freeUsed: 1,
      });
      expect(jobs.map((job) => job.status)).toEqual(['completed']);
      expect(after).toEqual({
        ...start,
        freeTranscriptionsRemaining: start.freeTranscriptionsRemaining - 1,
      });
    },
    120_000,
  );

  it('a retry without a key is attached even when its first try took the last free transcription', async () => {
    const workspace = await api.createWorkspace({
      name: 'OpenAI last free',
      balanceEur: 0,
      freeTranscriptions: 1,
    });
    const tries: number[] = [];

    const answer = await impatientClient(workspace.apiKey, tries)
      .audio.transcriptions.create({ file: await goForward(), model: 'whisper-1' })
      .catch((error: unknown) => error);

    const after = await balance(workspace.apiKey);
    const jobs = (await listed(workspace.apiKey)).length;
    expect({ tries, answer, jobs, balance: after.balance, free: after.freeTranscriptionsRemaining }).toEqual({
      tries: [0, 1, 2],
      answer: { text: expect.stringMatching(/forward/i) },
      jobs: 1,
      balance: 0,
      free: 0,
    });
  }, 120_000);

  it('attaches a request without a key only while the first job is open: the same file again later is a new job', async () => {
    const workspace = await api.createWorkspace({
      name: 'OpenAI again',
      balanceEur: 0,
      freeTranscriptions: 3,
    });
    await runJobs();
    const client = new OpenAI({ apiKey: workspace.apiKey, baseURL, maxRetries: 0 });

    const first = await client.audio.transcriptions.create({ file: await goForward(), model: 'whisper-1' });
    const again = await client.audio.transcriptions.create({ file: await goForward(), model: 'whisper-1' });

    expect(again.text).toBe(first.text);
    expect(await listed(workspace.apiKey)).toHaveLength(2);
    expect((await balance(workspace.apiKey)).freeTranscriptionsRemaining).toBe(1);
  }, 60_000);

  it('the same Idempotency-Key sent twice gets the same answer from one job; with another request, 422', async () => {
    const workspace = await api.createWorkspace({ name: 'OpenAI key', balanceEur: 0, freeTranscriptions: 3 });
    await runJobs();
    const key = randomUUID();
    const send = (responseFormat: string) =>
      api
        .http()
        .post('/v1/audio/transcriptions')
        .set(bearer(workspace.apiKey))
        .set('Idempotency-Key', key)
        .field('model', 'whisper-1')
        .field('response_format', responseFormat)
        .attach('file', GO_FORWARD);

    const first = await send('verbose_json');
    expectMatchesSpec(first, 'createOpenAiTranscription');
    expect(first.status).toBe(200);
    const second = await send('verbose_json');
    expectMatchesSpec(second, 'createOpenAiTranscription');
    const other = await send('text');
    expectMatchesSpec(other, 'createOpenAiTranscription');

    const after = await balance(workspace.apiKey);
    expect({
      second: { status: second.status, sameBody: JSON.stringify(second.body) === JSON.stringify(first.body) },
      other: { status: other.status, body: other.body },
      jobs: (await listed(workspace.apiKey)).length,
      freeUsed: 3 - after.freeTranscriptionsRemaining,
    }).toEqual({
      second: { status: 200, sameBody: true },
      other: {
        status: 422,
        body: {
          error: {
            message: 'This Idempotency-Key was already used with a different request in the last 24 hours.',
            type: 'invalid_request_error',
            param: null,
            code: 'idempotency_key_mismatch',
          },
        },
      },
      jobs: 1,
      freeUsed: 1,
    });
  }, 60_000);
});
