import { DeepgramClient } from '@deepgram/sdk';
import WebSocket from 'ws';
import { eventually } from '../support/eventually';
import { expectMatchesRealtimeSpec } from '../support/asyncapi-contract';
import { rawAudio } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { waitForTerminal } from '../support/transcriptions';
import { vendorContractFile, vendorSchemas } from '../support/vendor-contract';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.786 s: "go forward ten meters"
const CHUNK_MS = 100;

const deepgramStreaming = vendorSchemas('deepgram', 'streaming');
const VENDOR_SCHEMAS: Record<string, string> = {
  Results: 'ListenV1_ListenV1Results',
  Metadata: 'ListenV1_ListenV1Metadata',
  UtteranceEnd: 'ListenV1_ListenV1UtteranceEnd',
  SpeechStarted: 'ListenV1_ListenV1SpeechStarted',
};

type Message = { type: string } & Record<string, unknown>;
type Results = Message & {
  is_final: boolean;
  start: number;
  duration: number;
  from_finalize?: boolean;
  channel: { alternatives: Array<{ transcript: string; words: Array<{ word: string }> }> };
  metadata: { request_id: string };
};

/** Every message checked against our asyncapi.yaml and, where present, Deepgram's own published file. */
function checked(message: Message): Message {
  expectMatchesRealtimeSpec(message);
  const vendorSchema = VENDOR_SCHEMAS[message.type];
  if (deepgramStreaming && vendorSchema) deepgramStreaming.expectValid(vendorSchema, message);
  return message;
}

/** Sends `audio` in 100 ms frames at real-time pace. */
async function streamAtPace(
  send: (chunk: Buffer) => void,
  audio: Buffer,
  bytesPerSecond: number,
): Promise<void> {
  const chunkBytes = Math.round((bytesPerSecond * CHUNK_MS) / 1000);
  for (let offset = 0; offset < audio.length; offset += chunkBytes) {
    send(audio.subarray(offset, offset + chunkBytes));
    await new Promise((resolve) => setTimeout(resolve, CHUNK_MS));
  }
}

/**
 * Deepgram's live API (`wss://…/v1/listen`) driven by the real `@deepgram/sdk`, over the realtime sessions of
 * /v1/realtime (same recognition, billing, limits and storage). Every message is checked against asyncapi.yaml
 * and against Deepgram's published asyncapi.yml (../shared/compat/deepgram; skipped by name where missing).
 */
describe(`Deepgram-compatible live WebSocket /v1/listen${deepgramStreaming ? '' : ` (vendor checks skipped: ${vendorContractFile('deepgram', 'streaming')} is missing)`}`, () => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startTestApp({ MINIMUM_BALANCE_EUR: '0.0001' });
    baseUrl = `http://127.0.0.1:${await t.listeningPort()}`;
  });
  afterAll(() => t.close());

  it('the SDK streams a real clip at real-time pace: interim and final Results, SpeechStarted, UtteranceEnd, Metadata; the session is a billed transcription', async () => {
    const workspace = await t.createWorkspace({
      name: 'Deepgram live',
      freeTranscriptions: 0,
      balanceEur: 1,
    });
    const client = new DeepgramClient({ apiKey: workspace.apiKey, baseUrl });
    const connection = await client.listen.v1.connect({
      model: 'nova-2',
      encoding: 'linear16',
      sample_rate: 16000,
      interim_results: 'true',
      punctuate: 'true',
      vad_events: 'true',
      utterance_end_ms: '1000',
    });
    const messages: Message[] = [];
    let closed: { code: number } | null = null;
    connection.on('message', (message) => messages.push(checked(message as unknown as Message)));
    connection.on('close', (event) => (closed = { code: (event as { code: number }).code }));
    connection.connect();
    await connection.waitForOpen();

    connection.sendKeepAlive({ type: 'KeepAlive' });
    const audio = rawAudio(GO_FORWARD, 's16le', 16000);
    await streamAtPace(
      (chunk) => connection.sendMedia(chunk),
      Buffer.concat([audio, Buffer.alloc(32000)]),
      32000,
    );
    connection.sendFinalize({ type: 'Finalize' });
    connection.sendCloseStream({ type: 'CloseStream' });
    await eventually('the close', async () => closed, 30_000, 50);
    expect(closed).toEqual({ code: 1000 });

    const results = messages.filter((message): message is Results => message.type === 'Results');
    const finals = results.filter((message) => message.is_final);
    const heard = finals.map((message) => message.channel.alternatives[0].transcript).join(' ');
    expect(heard.toLowerCase()).toContain('forward');
    expect(results.some((message) => !message.is_final)).toBe(true);
    expect(messages.some((message) => message.type === 'SpeechStarted')).toBe(true);
    expect(messages.some((message) => message.type === 'UtteranceEnd')).toBe(true);
    const last = messages.at(-1) as Message & { request_id: string; duration: number };
    expect(last.type).toBe('Metadata');
    expect(last.duration).toBeCloseTo(audio.length / 32000 + 1, 1);
    expect(finals.every((message) => message.metadata.request_id === last.request_id)).toBe(true);

    // The session is a transcription of the workspace: stored, completed, billed per second of audio.
    const done = await waitForTerminal(t, workspace.apiKey, last.request_id, 30_000);
    expect(done.status).toBe('completed');
    expect(done.body.data).toMatchObject({ model: 'premium' });
    expect(done.body.data.cost as number).toBeGreaterThan(0);
  });

  it('refuses a handshake in Deepgram’s shape: an unknown key (401), a format it cannot take (400)', async () => {
    const workspace = await t.createWorkspace({ name: 'Deepgram live refusals' });
    const port = new URL(baseUrl).port;
    const handshake = (key: string, query: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/listen?${query}`, {
          headers: { Authorization: `Token ${key}` },
        });
        socket.on('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        socket.on('open', () => reject(new Error('the handshake was accepted')));
        socket.on('error', () => undefined);
      });
    const unknown = await handshake('svc_live_unknown', 'encoding=linear16&sample_rate=16000');
    expect(unknown.status).toBe(401);
    expect(JSON.parse(unknown.body)).toMatchObject({ err_code: 'INVALID_AUTH' });
    for (const query of [
      '',
      'encoding=opus',
      'encoding=linear16&sample_rate=44100',
      'channels=2&encoding=mulaw',
    ]) {
      const refused = await handshake(workspace.apiKey, query);
      expect({ query, status: refused.status }).toEqual({ query, status: 400 });
      expect(JSON.parse(refused.body)).toMatchObject({ err_code: 'Bad Request' });
      if (deepgramStreaming)
        vendorSchemas('deepgram')?.expectValid('ErrorResponseLegacyError', JSON.parse(refused.body));
    }
    // No session was opened: nothing is listed.
    const listed = await t.http().get('/v1/transcriptions').set(bearer(workspace.apiKey));
    expect(listed.body.data).toEqual([]);
  });
});
