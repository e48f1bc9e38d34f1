import { AssemblyAI } from 'assemblyai';
import { DataSource } from 'typeorm';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RetentionSettingsService } from '../../src/account/retention-settings.service';
import { OPERATOR } from '../../src/audit/audit-log.service';
import { RetentionPurgeService } from '../../src/transcriptions/retention/retention-purge.service';
import { UploadedAudioService } from '../../src/transcriptions/uploaded-audio/uploaded-audio.service';
import { WebhookDeliveryService } from '../../src/webhooks/webhook-delivery.service';
import { CallbackReceiver } from '../support/callback-receiver';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { vendorContractFile, vendorSchemas } from '../support/vendor-contract';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.786 s: "go forward ten meters"
const SILENCE = testAudio('kaldi-gstreamer-server/silence.wav'); // fails NO_SPOKEN_AUDIO
/** The value of a webhook's auth header: a secret that must reach the receiver and nothing else. */
const HOOK_SECRET = 'hook-secret-7f3a9c1e';
const NOT_AUDIO = __filename;

const vendor = vendorSchemas('assemblyai');
const vendorSkip = vendor ? '' : ` (skipped: ${vendorContractFile('assemblyai')} is missing)`;
const withVendorContract = vendor ? it : it.skip;

/**
 * An answer of ours, checked against AssemblyAI's own published schema when it is beside the repository. Its
 * `format: url` (ajv-formats) refuses loopback and private addresses by design, so the test servers' loopback
 * origins are read as a public one for the check; nothing else of the answer is changed.
 */
function vendorValid<T>(schema: string, value: T): T {
  const text = JSON.stringify(value).replace(/http:\/\/127\.0\.0\.1:\d+/g, 'https://stt.example.com');
  vendor?.expectValid(schema, JSON.parse(text));
  return value;
}

/** What the SDK threw: its message (the `error` of AssemblyAI's body). */
async function sdkError(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the call succeeded');
}

/**
 * AssemblyAI's `/v2` API driven by the real `assemblyai` SDK, over the normal jobs (billing, listing, deletion)
 * with errors in AssemblyAI's shape; answers checked against our contract and AssemblyAI's published one.
 */
describe('AssemblyAI-compatible /v2', () => {
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
      if (request.url === '/goforward.wav')
        response.writeHead(200, { 'Content-Type': 'audio/wav' }).end(readFileSync(GO_FORWARD));
      else if (request.url === '/silence.wav')
        response.writeHead(200, { 'Content-Type': 'audio/wav' }).end(readFileSync(SILENCE));
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => audioServer.listen(0, '127.0.0.1', resolve));
    audioBase = `http://127.0.0.1:${(audioServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => audioServer.close(resolve));
    await t.close();
    await receiver.stop();
  });

  /** The job's callback deliveries as stored (status and attempts). */
  const callbackDeliveries = (transcriptionId: string) =>
    t.app
      .get(DataSource)
      .query<Array<{ id: string; status: string; attempts: unknown[] }>>(
        `SELECT id, status, attempts FROM webhook_deliveries WHERE transcription_id = $1`,
        [transcriptionId],
      );

  const sdk = (apiKey: string) => new AssemblyAI({ apiKey, baseUrl });

  it('transcribes a file from disk with speaker labels (upload, submit, poll); reads it back every way; lists and deletes it', async () => {
    const workspace = await t.createWorkspace({
      name: 'AssemblyAI file',
      freeTranscriptions: 0,
      balanceEur: 1,
    });
    const client = sdk(workspace.apiKey);
    const transcript = vendorValid(
      'Transcript',
      await client.transcripts.transcribe(
        { audio: GO_FORWARD, speaker_labels: true, speech_model: 'best' },
        { pollingInterval: 200 },
      ),
    );
    expect(transcript.status).toBe('completed');
    expect(transcript.text?.toLowerCase()).toContain('forward');
    expect(transcript.audio_url).toMatch(new RegExp(`^${baseUrl}/v2/upload/[0-9a-f-]{36}$`));
    expect(transcript.audio_duration).toBe(3);
    for (const word of transcript.words ?? []) {
      expect(word.end).toBeGreaterThanOrEqual(word.start);
      expect(word.speaker).toBe('A');
    }
    expect(transcript.utterances?.map((utterance) => utterance.text).join(' ')).toBe(transcript.text);

    // The same job as POST /v1/transcriptions: listed with the tier `best` maps to, charged once.
    const native = await t.http().get(`/v1/transcriptions/${transcript.id}`).set(bearer(workspace.apiKey));
    expectMatchesSpec(native, 'getTranscription');
    expect(native.body.data).toMatchObject({ model: 'premium', status: 'completed' });
    expect(native.body.data.cost).toBeGreaterThan(0);

    const fetched = vendorValid('Transcript', await client.transcripts.get(transcript.id));
    expect(fetched.text).toBe(transcript.text);
    const sentences = vendorValid('SentencesResponse', await client.transcripts.sentences(transcript.id));
    expect(sentences.sentences.flatMap((sentence) => sentence.words)).toHaveLength(
      transcript.words?.length ?? -1,
    );
    const paragraphs = vendorValid('ParagraphsResponse', await client.transcripts.paragraphs(transcript.id));
    expect(paragraphs.paragraphs.map((paragraph) => paragraph.text).join(' ')).toBe(transcript.text);
    const search = vendorValid(
      'WordSearchResponse',
      await client.transcripts.wordSearch(transcript.id, ['forward', 'nowhere']),
    );
    expect(search.matches.map((match) => [match.text, match.count])).toEqual([
      ['forward', 1],
      ['nowhere', 0],
    ]);
    expect(search.total_count).toBe(1);
    const srt = await client.transcripts.subtitles(transcript.id, 'srt');
    expect(srt).toMatch(/^1\r?\n00:00:0\d,\d{3} --> /);
    const vtt = await client.transcripts.subtitles(transcript.id, 'vtt', 20);
    expect(vtt).toMatch(/^WEBVTT/);
    for (const line of vtt.split(/\r?\n/).filter((text) => /^[a-z]/i.test(text) && text !== 'WEBVTT')) {
      expect(line.length).toBeLessThanOrEqual(20);
    }

    const page = await client.transcripts.list({ limit: 10 });
    expect(page.transcripts.map((item) => item.id)).toEqual([transcript.id]);
    expect(page.transcripts[0].created).toBeInstanceOf(Date);
    // The SDK turns the times into Dates: the raw answer is what meets AssemblyAI's contract.
    const raw = await t.http().get('/v2/transcript?limit=10').set({ Authorization: workspace.apiKey });
    vendorValid('TranscriptList', raw.body);
    expect(new Date(`${raw.body.transcripts[0].created as string}Z`).getTime()).toBeCloseTo(
      Date.parse(native.body.data.createdOn as string),
      -2,
    );

    const deleted = vendorValid('Transcript', await client.transcripts.delete(transcript.id));
    expect(deleted).toMatchObject({ id: transcript.id, text: 'Deleted by user.', words: null });
    expect(await sdkError(client.transcripts.get(transcript.id))).toBe('Transcript not found');
  });

  it('answers in our contract: upload, create (queued), get, list, sub-resources, captions, delete', async () => {
    const workspace = await t.createWorkspace({ name: 'AssemblyAI contract' });
    const auth = { Authorization: workspace.apiKey };
    const uploaded = await t
      .http()
      .post('/v2/upload')
      .set(auth)
      .set('Content-Type', 'application/octet-stream')
      .send(readFileSync(GO_FORWARD));
    expectMatchesSpec(uploaded, 'createAssemblyAiUpload');
    const created = await t
      .http()
      .post('/v2/transcript')
      .set(auth)
      .send({
        audio_url: uploaded.body.upload_url,
        punctuate: false,
        format_text: false,
        word_boost: ['forward'],
      });
    expectMatchesSpec(created, 'createAssemblyAiTranscript');
    expect(['queued', 'processing']).toContain(created.body.status);
    const id = created.body.id as string;
    const transcript = await eventually(
      'the transcript to end',
      async () => {
        const polled = await t.http().get(`/v2/transcript/${id}`).set(auth);
        return ['completed', 'error'].includes(polled.body.status as string) ? polled : null;
      },
      30_000,
      100,
    );
    expectMatchesSpec(transcript, 'getAssemblyAiTranscript');
    expect(transcript.body).toMatchObject({ status: 'completed', punctuate: false, format_text: false });
    expect(transcript.body.text).toBe((transcript.body.text as string).toLowerCase());
    for (const [path, operation] of [
      [`/v2/transcript/${id}/sentences`, 'getAssemblyAiSentences'],
      [`/v2/transcript/${id}/paragraphs`, 'getAssemblyAiParagraphs'],
      [`/v2/transcript/${id}/word-search?words=forward`, 'searchAssemblyAiTranscript'],
      [`/v2/transcript/${id}/srt`, 'getAssemblyAiSubtitles'],
      [`/v2/transcript/${id}/vtt?chars_per_caption=32`, 'getAssemblyAiSubtitles'],
      ['/v2/transcript?limit=5&status=completed', 'listAssemblyAiTranscripts'],
    ] as const) {
      const response = await t.http().get(path).set(auth);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expectMatchesSpec(response, operation);
    }
    // Another workspace's key never reads it: 404, as for an unknown id.
    const other = await t.createWorkspace({ name: 'AssemblyAI other' });
    const foreign = await t.http().get(`/v2/transcript/${id}`).set({ Authorization: other.apiKey });
    expect(foreign.status).toBe(404);
    expectMatchesSpec(foreign, 'getAssemblyAiTranscript');
    // Nor uses its upload.
    const stolen = await t
      .http()
      .post('/v2/transcript')
      .set({ Authorization: other.apiKey })
      .send({ audio_url: uploaded.body.upload_url });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toMatch(/audio_url names an upload that does not exist/);
    // The audio's retention takes the URL the audio was named by with it (a signed link's token with it); the
    // expired upload goes too.
    await t.app.get(RetentionSettingsService).update(workspace.workspaceId, { audioDays: 0 }, OPERATOR);
    await t.app.get(UploadedAudioService).purgeExpired(new Date(Date.now() + 25 * 3600_000));
    await t.app.get(RetentionPurgeService).purgeExpired();
    const purged = await t.http().get(`/v2/transcript/${id}`).set(auth);
    expectMatchesSpec(purged, 'getAssemblyAiTranscript');
    expect(purged.body.audio_url).toBe('file://upload'); // uploaded without a Content-Disposition name
    const expired = await t
      .http()
      .post('/v2/transcript')
      .set(auth)
      .send({ audio_url: uploaded.body.upload_url });
    expect(expired.body.error).toMatch(/does not exist here or has expired/);
    const deleted = await t.http().delete(`/v2/transcript/${id}`).set(auth);
    expectMatchesSpec(deleted, 'deleteAssemblyAiTranscript');
  });

  withVendorContract(
    `a URL transcript, and every refusal, in AssemblyAI's published shapes${vendorSkip}`,
    async () => {
      const workspace = await t.createWorkspace({ name: 'AssemblyAI URL' });
      const client = sdk(workspace.apiKey);
      const transcript = vendorValid(
        'Transcript',
        await client.transcripts.transcribe(
          { audio: `${audioBase}/goforward.wav`, speech_model: 'nano' },
          { pollingInterval: 200 },
        ),
      );
      expect(transcript).toMatchObject({
        status: 'completed',
        audio_url: `${audioBase}/goforward.wav`,
        speech_model: 'nano',
      });
      const refused = await t.http().get('/v2/transcript/not-an-id').set({ Authorization: workspace.apiKey });
      vendorValid('Error', refused.body);
    },
  );

  it('refuses in AssemblyAI’s shape, which the SDK throws: key, model, what is not available, not audio, scope', async () => {
    const workspace = await t.createWorkspace({ name: 'AssemblyAI refusals' });
    expect(await sdkError(sdk('svc_live_unknown').transcripts.list())).toMatch(/^Authentication error/);
    const client = sdk(workspace.apiKey);
    expect(
      await sdkError(
        client.transcripts.submit({
          audio_url: `${audioBase}/goforward.wav`,
          speech_model: 'whisper-9' as never,
        }),
      ),
    ).toMatch(/speech_model/);
    // A webhook the webhook target policy refuses, or a header the service sets itself: 400 before any job.
    expect(
      await sdkError(
        client.transcripts.submit({
          audio_url: `${audioBase}/goforward.wav`,
          webhook_url: 'ftp://example.com/hook',
        }),
      ),
    ).toMatch(/webhook_url must use http or https/);
    expect(
      await sdkError(
        client.transcripts.submit({
          audio_url: `${audioBase}/goforward.wav`,
          webhook_url: receiver.url('/hook').replace('http://', 'http://user:secret@'),
        }),
      ),
    ).toMatch(/webhook_url must not contain credentials/);
    expect(
      await sdkError(
        client.transcripts.submit({
          audio_url: `${audioBase}/goforward.wav`,
          webhook_url: receiver.url('/hook'),
          webhook_auth_header_name: 'Content-Type',
          webhook_auth_header_value: HOOK_SECRET,
        }),
      ),
    ).toMatch(/webhook_auth_header_name names a header the service sets itself/);
    const badValue = await sdkError(
      client.transcripts.submit({
        audio_url: `${audioBase}/goforward.wav`,
        webhook_url: receiver.url('/hook'),
        webhook_auth_header_name: 'X-Hook-Secret',
        webhook_auth_header_value: `${HOOK_SECRET}\r\nHost: elsewhere`,
      }),
    );
    expect(badValue).toMatch(/webhook_auth_header_value must be one line/);
    expect(badValue).not.toContain(HOOK_SECRET);
    const refusedHook = await t
      .http()
      .post('/v2/transcript')
      .set({ Authorization: workspace.apiKey })
      .send({ audio_url: `${audioBase}/goforward.wav`, webhook_url: 'ftp://example.com/hook' });
    expect(refusedHook.status).toBe(400);
    expectMatchesSpec(refusedHook, 'createAssemblyAiTranscript');
    vendorValid('Error', refusedHook.body);
    expect(receiver.to('/hook')).toEqual([]);
    expect(
      await sdkError(
        client.transcripts.submit({ audio_url: `${audioBase}/goforward.wav`, summarization: true }),
      ),
    ).toMatch(/summarization/);
    expect(await sdkError(client.transcripts.transcribe({ audio: NOT_AUDIO }))).toMatch(
      /audio|format|media/i,
    );
    expect(await sdkError(client.transcripts.sentences('00000000-0000-4000-8000-000000000000'))).toBe(
      'Transcript not found',
    );
    const reader = await t
      .http()
      .post('/v1/api-keys')
      .set(bearer(t.issueToken(workspace.userId)))
      .send({ name: 'reader', scopes: ['transcriptions:read'] });
    expect(
      await sdkError(
        sdk(reader.body.data.key as string).transcripts.submit({ audio_url: `${audioBase}/goforward.wav` }),
      ),
    ).toMatch(/transcriptions:write/);
    // Nothing refused became a job.
    expect((await client.transcripts.list()).transcripts).toEqual([]);
  });

  it('webhook_url with an auth header: {transcript_id, status} is POSTed with the header; the transcript shows webhook_status_code and never the value; another workspace sees nothing', async () => {
    const workspace = await t.createWorkspace({
      name: 'AssemblyAI webhook',
      freeTranscriptions: 0,
      balanceEur: 1,
    });
    const client = sdk(workspace.apiKey);
    const submitted = vendorValid(
      'Transcript',
      await client.transcripts.submit({
        audio: GO_FORWARD,
        webhook_url: receiver.url('/aai-completed'),
        webhook_auth_header_name: 'X-Hook-Secret',
        webhook_auth_header_value: HOOK_SECRET,
      }),
    );
    expect(submitted).toMatchObject({
      webhook_url: receiver.url('/aai-completed'),
      webhook_auth: true,
      webhook_auth_header_name: 'X-Hook-Secret',
      webhook_status_code: null,
    });
    const [delivered] = await eventually(
      'the webhook',
      async () => receiver.arrived('/aai-completed'),
      60_000,
    );
    expect(delivered.method).toBe('POST');
    expect(delivered.headers['x-hook-secret']).toBe(HOOK_SECRET);
    expect(delivered.body).toEqual({ transcript_id: submitted.id, status: 'completed' });
    vendorValid('TranscriptReadyNotification', delivered.body);

    const transcript = await eventually(
      'the delivery status on the transcript',
      async () => {
        const polled = await client.transcripts.get(submitted.id);
        return polled.webhook_status_code === 200 ? polled : null;
      },
      30_000,
    );
    vendorValid('Transcript', transcript);
    expect(transcript).toMatchObject({
      status: 'completed',
      webhook_auth: true,
      webhook_auth_header_name: 'X-Hook-Secret',
    });
    const overHttp = await t
      .http()
      .get(`/v2/transcript/${submitted.id}`)
      .set({ Authorization: workspace.apiKey });
    expectMatchesSpec(overHttp, 'getAssemblyAiTranscript');
    expect(overHttp.body.webhook_status_code).toBe(200);
    // The header's value reaches the receiver only: not an answer, not the stored row in clear.
    const native = await t.http().get(`/v1/transcriptions/${submitted.id}`).set(bearer(workspace.apiKey));
    for (const text of [
      JSON.stringify(overHttp.body),
      JSON.stringify(transcript),
      JSON.stringify(native.body),
    ])
      expect(text).not.toContain(HOOK_SECRET);
    const [row] = await t.app
      .get(DataSource)
      .query<Array<{ callback: unknown }>>('SELECT callback FROM transcriptions WHERE id = $1', [
        submitted.id,
      ]);
    expect(JSON.stringify(row.callback)).not.toContain(HOOK_SECRET);
    // One delivery, delivered; the job billed as any other, the webhook free.
    expect(await callbackDeliveries(submitted.id)).toEqual([
      expect.objectContaining({
        status: 'delivered',
        attempts: [expect.objectContaining({ statusCode: 200 })],
      }),
    ]);
    expect(native.body.data.cost).toBeGreaterThan(0);

    const other = await t.createWorkspace({ name: 'AssemblyAI webhook, other' });
    expect(await sdkError(sdk(other.apiKey).transcripts.get(submitted.id))).toBe('Transcript not found');
    expect((await sdk(other.apiKey).transcripts.list()).transcripts).toEqual([]);
  });

  it('a transcript that errors sends status error; a 5xx answer is retried by the webhook retry policy, the status shown is the last attempt’s', async () => {
    const workspace = await t.createWorkspace({ name: 'AssemblyAI webhook retried' });
    receiver.answer('/aai-error', (nth) => (nth === 1 ? 503 : 200));
    const created = await t
      .http()
      .post('/v2/transcript')
      .set({ Authorization: workspace.apiKey })
      .send({ audio_url: `${audioBase}/silence.wav`, webhook_url: receiver.url('/aai-error') });
    expect(created.status).toBe(200);
    expectMatchesSpec(created, 'createAssemblyAiTranscript');
    const id = created.body.id as string;
    const [first, second] = await eventually(
      'two attempts',
      async () => receiver.arrived('/aai-error', 2),
      60_000,
    );
    for (const attempt of [first, second])
      expect(attempt.body).toEqual({ transcript_id: id, status: 'error' });
    expect(second.headers['x-service-delivery-id']).toBe(first.headers['x-service-delivery-id']);
    expect(first.headers['x-hook-secret']).toBeUndefined();
    const transcript = await eventually(
      'the delivered status',
      async () => {
        const polled = await t.http().get(`/v2/transcript/${id}`).set({ Authorization: workspace.apiKey });
        return polled.body.webhook_status_code === 200 ? polled : null;
      },
      30_000,
    );
    expectMatchesSpec(transcript, 'getAssemblyAiTranscript');
    expect(transcript.body).toMatchObject({
      status: 'error',
      webhook_auth: false,
      webhook_auth_header_name: null,
    });
    expect(await callbackDeliveries(id)).toEqual([
      expect.objectContaining({
        status: 'delivered',
        attempts: [
          expect.objectContaining({ statusCode: 503 }),
          expect.objectContaining({ statusCode: 200 }),
        ],
      }),
    ]);
  });

  it('deleting the transcript ends its pending webhook delivery', async () => {
    const workspace = await t.createWorkspace({ name: 'AssemblyAI webhook deleted' });
    receiver.answer('/aai-deleted', () => 503);
    const client = sdk(workspace.apiKey);
    const submitted = await client.transcripts.submit({
      audio_url: `${audioBase}/goforward.wav`,
      webhook_url: receiver.url('/aai-deleted'),
    });
    const [first] = await eventually(
      'the first attempt',
      async () => receiver.arrived('/aai-deleted'),
      60_000,
    );
    const deliveryId = first.headers['x-service-delivery-id'] as string;
    await eventually(
      'the first attempt recorded',
      async () => (await callbackDeliveries(submitted.id))[0]?.attempts.length === 1,
      30_000,
    );
    await client.transcripts.delete(submitted.id);
    expect(await callbackDeliveries(submitted.id)).toEqual([]);
    // The retry the failed attempt scheduled finds nothing to send.
    expect(await t.app.get(WebhookDeliveryService).attempt(deliveryId, 2)).toBe('stale');
    expect(receiver.to('/aai-deleted')).toHaveLength(1);
  });

  withVendorContract(
    `webhook: the error notification and the transcript's webhook fields in AssemblyAI's published shapes${vendorSkip}`,
    async () => {
      const workspace = await t.createWorkspace({ name: 'AssemblyAI webhook vendor' });
      const client = sdk(workspace.apiKey);
      const submitted = await client.transcripts.submit({
        audio_url: `${audioBase}/silence.wav`,
        webhook_url: receiver.url('/aai-vendor'),
        webhook_auth_header_name: 'Authorization',
        webhook_auth_header_value: `Bearer ${HOOK_SECRET}`,
      });
      const [delivered] = await eventually(
        'the webhook',
        async () => receiver.arrived('/aai-vendor'),
        60_000,
      );
      expect(delivered.headers.authorization).toBe(`Bearer ${HOOK_SECRET}`);
      vendorValid('TranscriptReadyNotification', delivered.body);
      // (Not its TranscriptWebhookNotification: `additionalProperties: false` beside a `oneOf` in that file refuses
      // every notification with a property, AssemblyAI's own included.)
      const transcript = await eventually(
        'the delivery status',
        async () => {
          const polled = await client.transcripts.get(submitted.id);
          return polled.webhook_status_code === 200 ? polled : null;
        },
        30_000,
      );
      vendorValid('Transcript', transcript);
    },
  );
});
