import { AssemblyAI, type StreamingTranscriber } from 'assemblyai';
import WebSocket from 'ws';
import { OPERATOR } from '../../src/audit/audit-log.service';
import { ApiKeyService } from '../../src/auth/api-key.service';
import { expectMatchesRealtimeSpec } from '../support/asyncapi-contract';
import { eventually } from '../support/eventually';
import { NginxProxy } from '../support/nginx';
import { expectMatchesSpec } from '../support/openapi-contract';
import { rawAudio } from '../support/realtime';
import { selfSignedCertificate, trustInThisProcess } from '../support/self-signed-certificate';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { waitForTerminal } from '../support/transcriptions';
import { vendorContractFile, vendorSchemas } from '../support/vendor-contract';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.786 s: "go forward ten meters"
const CHUNK_MS = 100;
const BYTES_PER_SECOND = 32000; // pcm_s16le at 16 kHz

const streaming = vendorSchemas('assemblyai', 'streaming');
const tokens = vendorSchemas('assemblyai', 'token');
const VENDOR_SCHEMAS: Record<string, string> = {
  Begin: 'SessionBeginsPayload',
  Turn: 'TurnPayload',
  Termination: 'TerminationPayload',
};
const TOKEN_ANSWER = '#/paths/~1v3~1token/get/responses/200/content/application~1json/schema';

type Message = { type: string } & Record<string, unknown>;
type Turn = Message & {
  turn_order: number;
  end_of_turn: boolean;
  turn_is_formatted: boolean;
  transcript: string;
  words: Array<{ text: string; word_is_final: boolean }>;
};

/** Every message checked against our asyncapi.yaml and, where present, AssemblyAI's own published file. */
function checked(message: Message): Message {
  expectMatchesRealtimeSpec(message);
  const vendorSchema = VENDOR_SCHEMAS[message.type];
  if (streaming && vendorSchema) streaming.expectValid(vendorSchema, message);
  return message;
}

/** Sends `audio` in 100 ms frames at real-time pace (AssemblyAI takes 50 to 1000 ms per message). */
async function streamAtPace(send: (chunk: Buffer) => void, audio: Buffer): Promise<void> {
  const chunkBytes = Math.round((BYTES_PER_SECOND * CHUNK_MS) / 1000);
  for (let offset = 0; offset < audio.length; offset += chunkBytes) {
    send(audio.subarray(offset, offset + chunkBytes));
    await new Promise((resolve) => setTimeout(resolve, CHUNK_MS));
  }
}

/** The clip and a second of silence after it, so the last turn ends by its silence too. */
const clip = (): Buffer =>
  Buffer.concat([rawAudio(GO_FORWARD, 's16le', 16000), Buffer.alloc(BYTES_PER_SECOND)]);

/** The close code and reason of a handshake the server ends before Begin (no SDK retries: a raw socket). */
function closedBeforeBegin(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ code: number; reason: string; messages: Message[] }> {
  return new Promise((resolve, reject) => {
    const messages: Message[] = [];
    const socket = new WebSocket(url, { headers });
    socket.on('message', (data) => messages.push(JSON.parse((data as Buffer).toString()) as Message));
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString(), messages }));
    socket.on('unexpected-response', (_request, response) =>
      reject(new Error(`HTTP ${response.statusCode}`)),
    );
    socket.on('error', () => undefined);
  });
}

/**
 * AssemblyAI's Universal-Streaming API (`wss://…/v3/ws`, `GET /v3/token`) driven by the real `assemblyai` SDK,
 * over the realtime sessions of /v1/realtime (same recognition, billing, limits and storage). The SDK speaks
 * `wss:` only, so Debian's nginx terminates TLS in front of the service with deploy/nginx.conf, as in production.
 * Every message is checked against asyncapi.yaml and AssemblyAI's published files (../shared/compat/assemblyai;
 * skipped by name where missing).
 */
describe(`AssemblyAI-compatible streaming /v3/ws and /v3/token, through nginx with TLS${streaming && tokens ? '' : ` (vendor checks skipped: ${vendorContractFile('assemblyai', 'streaming')} or its token file is missing)`}`, () => {
  let t: TestApp;
  let nginx: NginxProxy;
  let restoreTrust: () => void;
  let wsBase: string;
  beforeAll(async () => {
    t = await startTestApp({ MINIMUM_BALANCE_EUR: '0.0001' });
    const certificate = selfSignedCertificate();
    restoreTrust = trustInThisProcess(certificate);
    nginx = await new NginxProxy(certificate).start([await t.listeningPort()]);
    wsBase = `wss://127.0.0.1:${nginx.port}/v3/ws`;
  });
  afterAll(async () => {
    await nginx?.stop();
    restoreTrust?.();
    await t?.close();
  });

  const sdk = (apiKey: string) => new AssemblyAI({ apiKey, baseUrl: nginx.url, streamingBaseUrl: nginx.url });

  it('the SDK streams a real clip at real-time pace with an API key: Begin, partial and end-of-turn Turns (formatted too), Terminate; the session is a billed transcription', async () => {
    const workspace = await t.createWorkspace({
      name: 'AssemblyAI streaming',
      freeTranscriptions: 0,
      balanceEur: 1,
    });
    const transcriber: StreamingTranscriber = sdk(workspace.apiKey).streaming.transcriber({
      websocketBaseUrl: wsBase,
      sampleRate: 16000,
      formatTurns: true,
      // The SDK's default (1 s) is for a hosted service nearby; this shared test machine may be slower.
      connectTimeout: 15_000,
      keytermsPrompt: ['forward'],
    });
    const turns: Turn[] = [];
    transcriber.on('turn', (turn) => turns.push(checked(turn) as Turn));
    const begin = checked(await transcriber.connect()) as Message & {
      id: string;
      expires_at: number;
    };
    expect(begin.expires_at).toBeGreaterThan(Date.now() / 1000);

    await streamAtPace((chunk) => transcriber.sendAudio(Uint8Array.from(chunk).buffer), clip());
    // Terminate, then the SDK waits for Termination (its listeners are gone after it: the raw socket of the
    // next test sees the Termination message and the close code).
    await transcriber.close(true);

    const ends = turns.filter((turn) => turn.end_of_turn && !turn.turn_is_formatted);
    expect(ends.map((turn) => turn.transcript).join(' ')).toContain('forward');
    expect(ends.every((turn) => turn.words.every((word) => word.word_is_final))).toBe(true);
    const formatted = turns.filter((turn) => turn.turn_is_formatted);
    expect(formatted.map((turn) => turn.turn_order)).toEqual(ends.map((turn) => turn.turn_order));
    expect(formatted[0]?.transcript).toMatch(/^[A-Z].*\.$/);
    expect(turns.some((turn) => !turn.end_of_turn && turn.words.length > 0)).toBe(true);

    // The session is a transcription of the workspace: stored, completed, billed per second of audio.
    const done = await waitForTerminal(t, workspace.apiKey, begin.id, 30_000);
    expect(done.status).toBe('completed');
    expect(done.body.data).toMatchObject({ model: 'premium' });
    expect(done.body.data.cost as number).toBeGreaterThan(0);
  });

  it('a temporary token (the SDK’s createTemporaryToken) opens one /v3/ws session: Begin, Turns, Terminate → Termination and 1000; used twice, on /v1/realtime, or after its key is revoked it opens nothing', async () => {
    const workspace = await t.createWorkspace({
      name: 'AssemblyAI tokens',
      freeTranscriptions: 0,
      balanceEur: 1,
    });
    const client = sdk(workspace.apiKey);
    const answer = await t
      .http()
      .get('/v3/token?expires_in_seconds=60&max_session_duration_seconds=120')
      .set('Authorization', workspace.apiKey);
    expectMatchesSpec(answer, 'createAssemblyAiStreamingToken');
    tokens?.expectValid(TOKEN_ANSWER, answer.body);
    expect(answer.body).toMatchObject({ expires_in_seconds: 60 });

    const token = await client.streaming.createTemporaryToken({
      expires_in_seconds: 60,
      max_session_duration_seconds: 120,
    });
    const messages: Message[] = [];
    const socket = new WebSocket(`${wsBase}?sample_rate=16000&encoding=pcm_s16le&token=${token}`);
    const closed = new Promise<{ code: number }>((resolve) =>
      socket.on('close', (code) => resolve({ code })),
    );
    socket.on('message', (data) => messages.push(checked(JSON.parse((data as Buffer).toString()) as Message)));
    await eventually('Begin', async () => messages.find((message) => message.type === 'Begin'), 10_000, 20);
    const begin = messages[0] as Message & { id: string; expires_at: number };
    // The token's max_session_duration_seconds bounds the session.
    expect(begin.expires_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 120);
    await streamAtPace((chunk) => socket.send(chunk), clip());
    socket.send(JSON.stringify({ type: 'ForceEndpoint' }));
    socket.send(JSON.stringify({ type: 'UpdateConfiguration', min_turn_silence: 300 }));
    socket.send(JSON.stringify({ type: 'Terminate' }));
    expect(await closed).toEqual({ code: 1000 });
    expect(messages.at(-1)).toMatchObject({ type: 'Termination', audio_duration_seconds: 4 });
    const heard = messages.filter((message) => message.type === 'Turn' && message.end_of_turn) as Turn[];
    expect(heard.map((turn) => turn.transcript).join(' ')).toContain('forward');
    expect((await waitForTerminal(t, workspace.apiKey, begin.id, 30_000)).status).toBe('completed');

    // One session per token.
    const again = await closedBeforeBegin(`${wsBase}?sample_rate=16000&token=${token}`);
    expect(again).toMatchObject({ code: 4001, messages: [] });
    expect(again.reason).toMatch(/already used/);
    // A token opens AssemblyAI streaming only: not OpenAI's /v1/realtime.
    const other = await client.streaming.createTemporaryToken({ expires_in_seconds: 60 });
    const realtime = await closedBeforeBegin(`wss://127.0.0.1:${nginx.port}/v1/realtime`, bearer(other));
    expect(realtime.code).toBe(4001);
    expect(JSON.stringify(realtime.messages)).toMatch(/v3\/ws/);
    // A token lives no longer than the key that minted it.
    const orphan = await client.streaming.createTemporaryToken({ expires_in_seconds: 60 });
    await t.app.get(ApiKeyService).revoke(workspace.apiKey, OPERATOR);
    const revoked = await closedBeforeBegin(`${wsBase}?sample_rate=16000&token=${orphan}`);
    expect(revoked.code).toBe(4001);
    expect(revoked.reason).toMatch(/ended/);
  });

  it('refuses with the close codes the SDK reports (key, scope, money, format, parameters) and GET /v3/token in AssemblyAI’s shape; nothing refused becomes a session', async () => {
    const workspace = await t.createWorkspace({
      name: 'AssemblyAI refusals',
      freeTranscriptions: 0,
      balanceEur: 0,
    });
    const refusal = async (apiKey: string, params: Record<string, unknown> = {}) => {
      const transcriber = sdk(apiKey).streaming.transcriber({
        websocketBaseUrl: wsBase,
        sampleRate: 16000,
        maxConnectionRetries: 0,
        connectTimeout: 15_000,
        ...params,
      });
      return transcriber.connect().then(
        () => {
          throw new Error('the session opened');
        },
        (error: Error & { code?: number }) => ({ code: error.code, message: error.message }),
      );
    };
    expect(await refusal('svc_live_unknown')).toMatchObject({ code: 4001 });
    expect(await refusal(workspace.apiKey)).toMatchObject({
      code: 4002,
      message: expect.stringMatching(/balance/),
    });
    expect(await refusal(workspace.apiKey, { sampleRate: 44100 })).toMatchObject({
      code: 4000,
      message: expect.stringMatching(/sample_rate/),
    });
    expect(await refusal(workspace.apiKey, { speakerLabels: true })).toMatchObject({
      code: 3006,
      message: expect.stringMatching(/speaker_labels/),
    });
    expect(await refusal(workspace.apiKey, { speechModel: 'u3-rt-pro' })).toMatchObject({
      code: 3006,
      message: expect.stringMatching(/speech_model/),
    });

    const reader = await t
      .http()
      .post('/v1/api-keys')
      .set(bearer(t.issueToken(workspace.userId)))
      .send({ name: 'reader', scopes: ['transcriptions:read'] });
    const readOnly = reader.body.data.key as string;
    expect(await refusal(readOnly)).toMatchObject({ code: 4003 });

    for (const [query, apiKey, status] of [
      ['', workspace.apiKey, 400],
      ['?expires_in_seconds=601', workspace.apiKey, 400],
      ['?expires_in_seconds=60&max_session_duration_seconds=59', workspace.apiKey, 400],
      ['?expires_in_seconds=60', readOnly, 403],
      ['?expires_in_seconds=60', 'svc_live_unknown', 401],
    ] as const) {
      const answer = await t.http().get(`/v3/token${query}`).set('Authorization', apiKey);
      expect(answer.status).toBe(status);
      expectMatchesSpec(answer, 'createAssemblyAiStreamingToken');
      tokens?.expectValid('Error', answer.body);
    }
    const sessions = await t.http().get('/v1/transcriptions').set(bearer(workspace.apiKey));
    expect(sessions.body.data).toEqual([]);
  });
});
