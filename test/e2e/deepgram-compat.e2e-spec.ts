import { DeepgramClient, DeepgramError } from '@deepgram/sdk';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallbackReceiver } from '../support/callback-receiver';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { generatedAudio } from '../support/transcriptions';
import { vendorContractFile, vendorSchemas } from '../support/vendor-contract';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.786 s: "go forward ten meters"
const SILENCE = testAudio('kaldi-gstreamer-server/silence.wav'); // fails NO_SPOKEN_AUDIO
const DARK_SUIT = testAudio('coqui-stt/LDC93S1.wav'); // "she had your dark suit in greasy wash water all year"
const NOT_AUDIO = __filename;

const deepgram = vendorSchemas('deepgram');
/** Checks against Deepgram's own published contract, or a skipped test that says why. */
const withDeepgramContract = deepgram ? it : it.skip;
const vendorSkip = deepgram ? '' : ` (skipped: ${vendorContractFile('deepgram')} is missing)`;

type ListenResponse = {
  metadata: { request_id: string; sha256: string; duration: number; channels: number; models: string[] };
  results: {
    channels: Array<{
      detected_language?: string;
      alternatives: Array<{
        transcript: string;
        confidence?: number;
        words: Array<{
          word: string;
          start: number;
          end: number;
          speaker?: number;
          punctuated_word?: string;
        }>;
        paragraphs?: { transcript: string; paragraphs: Array<{ sentences: unknown[]; num_words: number }> };
      }>;
    }>;
    utterances?: Array<{ transcript: string; channel: number; id: string; words: unknown[] }>;
  };
};

/** What the SDK threw: its status code and the body it read (Deepgram's error shape). */
async function sdkError(call: Promise<unknown>): Promise<{ statusCode?: number; body: unknown }> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(DeepgramError);
    const { statusCode, body } = error as DeepgramError;
    return { statusCode, body };
  }
  throw new Error('the call succeeded');
}

/**
 * Deepgram's pre-recorded POST /v1/listen, driven by the real `@deepgram/sdk`, over the normal job pipeline
 * (the same jobs, billing and limits) with errors in Deepgram's shape; every answer is checked against our
 * contract and against Deepgram's own published one (../shared/compat/deepgram/openapi.yml).
 */
describe('Deepgram-compatible POST /v1/listen', () => {
  let t: TestApp;
  let baseUrl: string;
  let audioServer: Server;
  let audioBase: string;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    receiver = await new CallbackReceiver().start();
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    baseUrl = `http://127.0.0.1:${await t.listeningPort()}`;
    audioServer = createServer((request, response) => {
      if (request.url === '/goforward.wav') {
        response.writeHead(200, { 'Content-Type': 'audio/wav' }).end(readFileSync(GO_FORWARD));
      } else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => audioServer.listen(0, '127.0.0.1', resolve));
    audioBase = `http://127.0.0.1:${(audioServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => audioServer.close(resolve));
    await t.close();
    await receiver.stop();
  });

  const sdk = (apiKey: string) => new DeepgramClient({ apiKey, baseUrl });

  /** The raw answer of the same request as the SDK's, for our contract (status, headers and body). */
  const listenOverHttp = (apiKey: string, query: string, file = GO_FORWARD) =>
    t
      .http()
      .post(`/v1/listen?${query}`)
      .set('Authorization', `Token ${apiKey}`)
      .set('Content-Type', 'application/octet-stream')
      .send(readFileSync(file));

  async function listed(apiKey: string) {
    const response = await t.http().get('/v1/transcriptions?limit=100').set(bearer(apiKey));
    expectMatchesSpec(response, 'listTranscriptions');
    return response.body.data as Array<{ id: string; model: string; status: string; cost: number | null }>;
  }

  it('transcribes a file from disk with diarize, utterances and smart_format; the answer is a listed, billed job', async () => {
    const workspace = await t.createWorkspace({
      name: 'Deepgram file',
      freeTranscriptions: 0,
      balanceEur: 1,
    });
    const answer = (await sdk(workspace.apiKey).listen.v1.media.transcribeFile(createReadStream(GO_FORWARD), {
      model: 'nova-3',
      diarize: true,
      utterances: true,
      smart_format: true,
    })) as unknown as ListenResponse;

    const [channel] = answer.results.channels;
    const [best] = channel.alternatives;
    expect(best.transcript.toLowerCase()).toContain('forward');
    expect(best.words.map((word) => word.word)).toContain('forward');
    for (const word of best.words) {
      expect(word.end).toBeGreaterThanOrEqual(word.start);
      expect(word.speaker).toBe(0);
      expect(word.punctuated_word).toEqual(expect.any(String));
    }
    expect(answer.metadata).toMatchObject({
      models: ['nova-3'],
      channels: 1,
      sha256: createHash('sha256').update(readFileSync(GO_FORWARD)).digest('hex'),
    });
    expect(answer.metadata.duration).toBeCloseTo(2.786, 1);
    expect(answer.results.utterances?.map((utterance) => utterance.transcript).join(' ')).toBe(
      best.transcript,
    );
    expect(best.paragraphs?.paragraphs.reduce((sum, paragraph) => sum + paragraph.num_words, 0)).toBe(
      best.words.length,
    );

    // The same job as POST /v1/transcriptions: listed, on the tier nova-3 maps to, charged once.
    const jobs = await listed(workspace.apiKey);
    expect(jobs).toEqual([
      expect.objectContaining({ id: answer.metadata.request_id, model: 'premium_jade', status: 'completed' }),
    ]);
    expect(jobs[0].cost).toBeGreaterThan(0);
  });

  it('answers in our contract with every header, for Token and Bearer alike', async () => {
    const workspace = await t.createWorkspace({ name: 'Deepgram contract' });
    const response = await listenOverHttp(workspace.apiKey, 'punctuate=true&utterances=true&paragraphs=true');
    expect(response.status).toBe(200);
    expectMatchesSpec(response, 'createDeepgramTranscription');
    const withBearer = await t
      .http()
      .post('/v1/listen')
      .set(bearer(workspace.apiKey))
      .set('Content-Type', 'audio/wav')
      .send(readFileSync(GO_FORWARD));
    expect(withBearer.status).toBe(200);
    expectMatchesSpec(withBearer, 'createDeepgramTranscription');
    // Without diarize or punctuate, words carry neither speaker nor punctuated_word.
    const [word] = (withBearer.body as ListenResponse).results.channels[0].alternatives[0].words;
    expect(word).not.toHaveProperty('punctuated_word');
    expect(word).not.toHaveProperty('speaker');
  });

  withDeepgramContract(
    `every answer is valid against Deepgram's published ListenV1Response${vendorSkip}`,
    async () => {
      const workspace = await t.createWorkspace({ name: 'Deepgram vendor contract' });
      for (const query of [
        '',
        'punctuate=true&diarize=true&utterances=true&paragraphs=true',
        'detect_language=true',
      ]) {
        const response = await listenOverHttp(workspace.apiKey, query);
        expect(response.status).toBe(200);
        deepgram?.expectValid('ListenV1Response', response.body);
      }
      const refused = await listenOverHttp('svc_live_unknown', '');
      deepgram?.expectValid('ErrorResponseLegacyError', refused.body);
    },
  );

  it('transcribes a URL (transcribeUrl) through the outbound-URL policy, on the tier the model maps to', async () => {
    const workspace = await t.createWorkspace({ name: 'Deepgram URL' });
    const answer = (await sdk(workspace.apiKey).listen.v1.media.transcribeUrl({
      url: `${audioBase}/goforward.wav`,
      model: 'nova-2-meeting',
      paragraphs: true,
    })) as unknown as ListenResponse;
    expect(answer.results.channels[0].alternatives[0].transcript).toContain('forward');
    expect(answer.metadata.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await listed(workspace.apiKey)).toEqual([
      expect.objectContaining({ id: answer.metadata.request_id, model: 'premium' }),
    ]);
    if (deepgram) deepgram.expectValid('ListenV1Response', answer);
  });

  it('multichannel: one results.channels entry per channel, each with its own words', async () => {
    const workspace = await t.createWorkspace({ name: 'Deepgram channels' });
    const mono = 'aformat=sample_fmts=s16:sample_rates=16000:channel_layouts=mono';
    const stereo = generatedAudio('two-callers.wav', [
      ...['-i', GO_FORWARD, '-i', DARK_SUIT],
      '-filter_complex',
      `[0]${mono},apad[left];[1]${mono},apad[right];[left][right]join=inputs=2:channel_layout=stereo[out]`,
      ...['-map', '[out]', '-t', '3.5'],
    ]);
    const response = await listenOverHttp(workspace.apiKey, 'multichannel=true&utterances=true', stereo);
    expect(response.status).toBe(200);
    expectMatchesSpec(response, 'createDeepgramTranscription');
    const answer = response.body as ListenResponse;
    expect(answer.metadata.channels).toBe(2);
    const [left, right] = answer.results.channels.map((channel) => channel.alternatives[0].transcript);
    expect(left).toContain('forward');
    expect(right).not.toContain('forward');
    expect(new Set(answer.results.utterances?.map((utterance) => utterance.channel))).toEqual(
      new Set([0, 1]),
    );
  });

  it('refuses in Deepgram’s shape, which the SDK reads: key, model, what is not available, not audio, money, scope', async () => {
    const workspace = await t.createWorkspace({
      name: 'Deepgram refusals',
      freeTranscriptions: 0,
      balanceEur: 0,
    });
    const file = () => createReadStream(GO_FORWARD);

    const unknownKey = await sdkError(sdk('svc_live_unknown').listen.v1.media.transcribeFile(file(), {}));
    expect(unknownKey).toMatchObject({ statusCode: 401, body: { err_code: 'INVALID_AUTH' } });

    const rich = await t.createWorkspace({ name: 'Deepgram refusals with money' });
    const model = await sdkError(
      sdk(rich.apiKey).listen.v1.media.transcribeFile(file(), { model: 'aura-2' }),
    );
    expect(model).toMatchObject({ statusCode: 400, body: { err_code: 'Bad Request' } });
    expect((model.body as { err_msg: string }).err_msg).toContain('aura-2');

    // A callback URL the webhook target policy refuses (credentials in it; another scheme).
    const callback = await sdkError(
      sdk(rich.apiKey).listen.v1.media.transcribeFile(file(), {
        callback: receiver.url('/hook').replace('http://', 'http://user:secret@'),
      }),
    );
    expect(callback).toMatchObject({ statusCode: 400, body: { err_code: 'Bad Request' } });
    expect((callback.body as { err_msg: string }).err_msg).toMatch(/callback must not contain credentials/);
    if (deepgram) deepgram.expectValid('ErrorResponseLegacyError', callback.body);

    const notAudio = await sdkError(
      sdk(rich.apiKey).listen.v1.media.transcribeFile(createReadStream(NOT_AUDIO), {}),
    );
    expect(notAudio).toMatchObject({ statusCode: 400, body: { err_code: 'Bad Request' } });

    const broke = await sdkError(sdk(workspace.apiKey).listen.v1.media.transcribeFile(file(), {}));
    expect(broke).toMatchObject({ statusCode: 402, body: { err_code: 'ASR_PAYMENT_REQUIRED' } });

    const reader = await t
      .http()
      .post('/v1/api-keys')
      .set(bearer(t.issueToken(rich.userId)))
      .send({ name: 'reader', scopes: ['transcriptions:read'] });
    expect(reader.status).toBe(201);
    const scoped = await sdkError(
      sdk(reader.body.data.key as string).listen.v1.media.transcribeFile(file(), {}),
    );
    expect(scoped).toMatchObject({ statusCode: 403, body: { err_code: 'INSUFFICIENT_PERMISSIONS' } });

    for (const [query, status] of [
      ['model=aura-2', 400],
      ['callback=ftp://example.com/hook', 400],
      [`callback=${encodeURIComponent(receiver.url('/hook'))}&callback_method=GET`, 400],
      ['utt_split=0', 400],
      ['redact=everything', 400],
    ] as const) {
      const response = await listenOverHttp(rich.apiKey, query);
      expect(response.status).toBe(status);
      expectMatchesSpec(response, 'createDeepgramTranscription');
      expect(response.body.request_id).toBe(response.headers['x-request-id']);
    }
    // Nothing refused became a job.
    expect(await listed(rich.apiKey)).toEqual([]);
  });

  it('callback: answered {request_id} at once; the ListenV1Response the synchronous answer would be goes to the callback (PUT when asked); another workspace sees nothing', async () => {
    const workspace = await t.createWorkspace({
      name: 'Deepgram callback',
      freeTranscriptions: 0,
      balanceEur: 1,
    });
    const options = { model: 'nova-3', diarize: true, utterances: true, smart_format: true } as const;
    const accepted = (await sdk(workspace.apiKey).listen.v1.media.transcribeFile(
      createReadStream(GO_FORWARD),
      {
        ...options,
        callback: receiver.url('/deepgram-put'),
        callback_method: 'PUT',
      },
    )) as unknown as { request_id: string };
    expect(Object.keys(accepted)).toEqual(['request_id']);
    const jobId = accepted.request_id;

    const [delivered] = await eventually(
      'the callback',
      async () => receiver.arrived('/deepgram-put'),
      60_000,
    );
    expect(delivered.method).toBe('PUT');
    expect(delivered.headers['content-type']).toBe('application/json');
    expect(delivered.headers['x-service-delivery-id']).toEqual(expect.any(String));
    const body = delivered.body as ListenResponse;
    expect(body.metadata).toMatchObject({
      request_id: jobId,
      models: ['nova-3'],
      sha256: createHash('sha256').update(readFileSync(GO_FORWARD)).digest('hex'),
    });

    // The same body as the synchronous answer to the same request (but for the job's own id and time).
    const synchronous = (await sdk(workspace.apiKey).listen.v1.media.transcribeFile(
      createReadStream(GO_FORWARD),
      options,
    )) as unknown as ListenResponse;
    const withoutJob = (answer: ListenResponse) =>
      JSON.parse(
        JSON.stringify(answer)
          .replaceAll(answer.metadata.request_id, 'JOB')
          .replace(/"created":"[^"]+"/, '"created":"T"')
          .replace(/"id":"[0-9a-f-]{36}"/g, '"id":"U"'),
      ) as unknown;
    expect(withoutJob(body)).toEqual(withoutJob(synchronous));

    // One delivery, the job billed as any other; nothing of it reaches another workspace.
    expect(receiver.to('/deepgram-put')).toHaveLength(1);
    const jobs = await listed(workspace.apiKey);
    expect(jobs.find((job) => job.id === jobId)).toMatchObject({
      status: 'completed',
      model: 'premium_jade',
    });
    expect(jobs.find((job) => job.id === jobId)?.cost).toBeGreaterThan(0);
    const other = await t.createWorkspace({ name: 'Deepgram callback, other' });
    const stranger = await t.http().get(`/v1/transcriptions/${jobId}`).set(bearer(other.apiKey));
    expect(stranger.status).toBe(404);
    expect(await listed(other.apiKey)).toEqual([]);
  });

  it('callback over plain HTTP: the immediate answer is in our contract; a failed job sends Deepgram’s error body', async () => {
    const workspace = await t.createWorkspace({ name: 'Deepgram callback contract' });
    const response = await listenOverHttp(
      workspace.apiKey,
      `callback=${encodeURIComponent(receiver.url('/deepgram-failed'))}`,
      SILENCE,
    );
    expect(response.status).toBe(200);
    expectMatchesSpec(response, 'createDeepgramTranscription');
    const jobId = (response.body as { request_id: string }).request_id;
    const [delivered] = await eventually(
      'the failure callback',
      async () => receiver.arrived('/deepgram-failed'),
      60_000,
    );
    expect(delivered.method).toBe('POST');
    expect(delivered.body).toEqual({
      err_code: 'TRANSCRIPTION_FAILED',
      err_msg: expect.stringMatching(new RegExp(`^The transcription ${jobId} failed: NO_SPOKEN_AUDIO`)),
      request_id: jobId,
    });
  });

  withDeepgramContract(
    `callback: the answer is Deepgram's ListenV1AcceptedResponse, the bodies sent are its ListenV1Response and error${vendorSkip}`,
    async () => {
      const workspace = await t.createWorkspace({ name: 'Deepgram callback vendor contract' });
      const accepted = await sdk(workspace.apiKey).listen.v1.media.transcribeUrl({
        url: `${audioBase}/goforward.wav`,
        callback: receiver.url('/deepgram-vendor'),
        punctuate: true,
        paragraphs: true,
      });
      deepgram?.expectValid('ListenV1AcceptedResponse', accepted);
      deepgram?.expectValid('listen_v1_media_transcribe_Response_200', accepted);
      const [delivered] = await eventually(
        'the callback',
        async () => receiver.arrived('/deepgram-vendor'),
        60_000,
      );
      deepgram?.expectValid('ListenV1Response', delivered.body);
      expect((delivered.body as ListenResponse).metadata.request_id).toBe(
        (accepted as unknown as { request_id: string }).request_id,
      );
      const silent = await listenOverHttp(
        workspace.apiKey,
        `callback=${encodeURIComponent(receiver.url('/deepgram-vendor-failed'))}`,
        SILENCE,
      );
      deepgram?.expectValid('ListenV1AcceptedResponse', silent.body);
      const [failed] = await eventually(
        'the failure callback',
        async () => receiver.arrived('/deepgram-vendor-failed'),
        60_000,
      );
      deepgram?.expectValid('ErrorResponseLegacyError', failed.body);
    },
  );
});
