import { createConnection } from 'node:net';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { rawAudio, RealtimeTestClient, type ServerEvent } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"
const WITH_SILENCE = testAudio('kaldi-gstreamer-server/test_with_silence.wav'); // 10.3 s, phrases between pauses
const MAX_MESSAGE_BYTES = 256 * 1024;
const IDLE_TIMEOUT_MS = 4000;

interface CompletedItem {
  transcript: string;
  audio_start_ms: number;
  audio_end_ms: number;
  transcription_id: string;
  words: Array<{ word: string; start: number; end: number; confidence: number | null }>;
}

/**
 * Live transcription over WebSocket: real audio streamed by a `ws` client and by the official `openai` SDK's
 * realtime client, recognised by PocketSphinx as it arrives; every server event is checked against asyncapi.yaml.
 */
describe('Realtime transcription over WebSocket /v1/realtime', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({
      REALTIME_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      REALTIME_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES),
      REALTIME_MAX_SESSIONS_PER_WORKSPACE: '2',
      REALTIME_MAX_SESSIONS: '3',
      // The whole process may go to one workspace here: its limit across instances is what is tested (the
      // default share, half the process, is realtime-capacity.e2e-spec.ts's).
      REALTIME_MAX_PROCESS_SESSIONS_PER_WORKSPACE: '3',
      MINIMUM_BALANCE_EUR: '0.0001',
      // A tier on a recogniser that cannot stream (never called: the session is refused at open).
      ENGINE_RECOGNIZER_PREMIUM_JADE: 'openai-compatible',
      OPENAI_STT_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    port = await t.listeningPort();
  });
  afterAll(() => t.close());

  const connect = (apiKey: string, query = '') => RealtimeTestClient.connect(port, bearer(apiKey), query);

  async function transcription(apiKey: string, id: string, status = 'completed') {
    return eventually(
      `transcription ${status}`,
      async () => {
        const response = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
        expectMatchesSpec(response, 'getTranscription');
        return response.body.data.status === status ? response.body.data : null;
      },
      30_000,
      100,
    );
  }

  const useFormat = (
    client: RealtimeTestClient,
    format: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) =>
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format, ...extra } } },
    });

  it('streams a clip at real-time pace: partials every 500 ms of speech, a final with words; the session is a billed transcription', async () => {
    const workspace = await t.createWorkspace({
      name: 'Realtime paced',
      freeTranscriptions: 0,
      balanceEur: 10,
    });
    const client = connect(workspace.apiKey);
    const transcriptionId = await client.transcriptionId();
    const open = await t.http().get('/v1/transcriptions').set(bearer(workspace.apiKey));
    expectMatchesSpec(open, 'listTranscriptions');
    expect(open.body.data).toEqual([expect.objectContaining({ id: transcriptionId, status: 'processing' })]);

    useFormat(client, { type: 'audio/pcm', rate: 16000 });
    client.send({ type: 'session.update', session: { metadata: { call: 'paced' } } });
    await client.next('session.updated', 2);
    const audio = rawAudio(GO_FORWARD, 's16le', 16000);
    await client.stream(audio, 32000, { chunkMs: 100, paced: true });
    await client.stream(Buffer.alloc(32000), 32000, { chunkMs: 100, paced: true }); // silence ends the utterance
    const completed = (await client.next(
      'conversation.item.input_audio_transcription.completed',
    )) as ServerEvent & CompletedItem;

    const started = client.of('input_audio_buffer.speech_started');
    const stopped = client.of('input_audio_buffer.speech_stopped');
    const committed = client.of('input_audio_buffer.committed');
    expect([started.length, stopped.length, committed.length]).toEqual([1, 1, 1]);
    expect(
      new Set([started[0].item_id, stopped[0].item_id, committed[0].item_id, completed.item_id]).size,
    ).toBe(1);
    expect(committed[0].previous_item_id).toBeNull();
    // 2.8 s of speech: a partial at least every 500 ms of it, each carrying the hypothesis so far.
    const deltas = client.of('conversation.item.input_audio_transcription.delta');
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    expect(String(deltas[deltas.length - 1].partial)).toMatch(/forward/);
    // OpenAI clients concatenate deltas: an item's deltas add up to its transcript exactly (issue 35 item 6).
    expect(deltas.map((delta) => String(delta.delta)).join('')).toBe(completed.transcript);
    expect(deltas[deltas.length - 1]).toMatchObject({
      delta: completed.transcript,
      partial: completed.transcript,
    });
    expect(completed.transcript).toMatch(/^Go forward \w+ meters\.$/);
    expect(completed.words.map((word) => word.word.toLowerCase())).toEqual([
      'go',
      'forward',
      expect.any(String),
      'meters.',
    ]);
    for (const word of completed.words) {
      expect(word.start).toBeLessThan(word.end);
      expect(word.confidence).toBeGreaterThanOrEqual(0);
    }
    expect(completed.transcription_id).toBe(transcriptionId);

    client.socket.close();
    const done = await transcription(workspace.apiKey, transcriptionId);
    expect(done).toMatchObject({
      resultText: completed.transcript,
      duration: (audio.length + 32000) / 32000,
      mimeType: 'audio/wav',
      metadata: { call: 'paced' },
      // 3.8 s received, billed as 4 started seconds at the standard price.
      cost: expect.any(Number),
    });
    expect(done.cost).toBeGreaterThan(0);
    // Speakers are computed when the session ends (one voice here).
    expect(done.resultJson.words).toEqual(
      completed.words.map((word) => ({ ...word, speaker: 'SPEAKER_00' })),
    );
    const stored = await t
      .http()
      .get(`/v1/transcriptions/${transcriptionId}/audio`)
      .set(bearer(workspace.apiKey));
    expect(stored.status).toBe(200);
    expect(Number(stored.headers['content-length'])).toBe(44 + audio.length + 32000);
  });

  it('takes 24 kHz PCM (the default) faster than real time: one item per phrase, times relative to the session', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime fast' });
    const client = connect(workspace.apiKey, '?model=whisper-1');
    await client.next('session.created');
    const audio = rawAudio(WITH_SILENCE, 's16le', 24000);
    await client.stream(audio, 48000, { chunkMs: 250, paced: false });
    client.send({ type: 'input_audio_buffer.commit' });
    const before = client.of('conversation.item.input_audio_transcription.completed').length;
    await client.next('conversation.item.input_audio_transcription.completed', Math.max(2, before));
    const items = client.of(
      'conversation.item.input_audio_transcription.completed',
    ) as unknown as CompletedItem[];
    expect(items.length).toBeGreaterThanOrEqual(2);
    for (let index = 1; index < items.length; index++) {
      expect(items[index].audio_start_ms).toBeGreaterThanOrEqual(items[index - 1].audio_end_ms);
      if (items[index].words.length > 0) {
        expect(items[index].words[0].start * 1000).toBeGreaterThanOrEqual(items[index].audio_start_ms - 1);
      }
    }
    expect(items[items.length - 1].audio_end_ms).toBeGreaterThan(8000);
    const committed = client.of('input_audio_buffer.committed');
    expect(committed[1].previous_item_id).toBe(committed[0].item_id);
  });

  it('takes G.711 µ-law and A-law at 8 kHz with client commits (turn detection off)', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime telephony' });
    for (const [type, encoding] of [
      ['audio/pcmu', 'mulaw'],
      ['audio/pcma', 'alaw'],
    ] as const) {
      const client = connect(workspace.apiKey);
      await client.next('session.created');
      useFormat(client, { type }, { turn_detection: null });
      const updated = await client.next('session.updated');
      expect(updated.session).toMatchObject({
        audio: { input: { format: { type, rate: 8000 }, turn_detection: null } },
      });
      await client.stream(rawAudio(GO_FORWARD, encoding, 8000), 8000, { chunkMs: 500, paced: false });
      client.send({ type: 'input_audio_buffer.commit' });
      const completed = await client.next('conversation.item.input_audio_transcription.completed');
      expect(String(completed.transcript).toLowerCase()).toContain('forward');
      expect(client.of('input_audio_buffer.speech_started')).toEqual([]);
      client.send({ type: 'input_audio_buffer.commit', event_id: 'again' });
      const empty = await client.next('error');
      expect(empty.error).toMatchObject({ code: 'input_audio_buffer_commit_empty', event_id: 'again' });
      client.socket.close();
    }
  });

  it('drops the uncommitted audio on input_audio_buffer.clear: a commit after it has nothing to commit', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime clear' });
    const client = connect(workspace.apiKey);
    await client.next('session.created');
    useFormat(client, { type: 'audio/pcmu' }, { turn_detection: null });
    await client.next('session.updated');
    await client.stream(rawAudio(GO_FORWARD, 'mulaw', 8000), 8000, { chunkMs: 500, paced: false });
    client.send({ type: 'input_audio_buffer.clear' });
    await client.next('input_audio_buffer.cleared');
    client.send({ type: 'input_audio_buffer.commit', event_id: 'after-clear' });
    const empty = await client.next('error');
    expect(empty.error).toMatchObject({ code: 'input_audio_buffer_commit_empty', event_id: 'after-clear' });
    expect(client.of('input_audio_buffer.committed')).toEqual([]);
    expect(client.of('conversation.item.input_audio_transcription.completed')).toEqual([]);
    client.socket.close();
  });

  it('serves the official openai SDK realtime client unchanged', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime SDK' });
    const openai = new OpenAI({ apiKey: workspace.apiKey, baseURL: `http://127.0.0.1:${port}/v1` });
    // The SDK always dials wss://; this plain-HTTP test server is reached over TCP instead of TLS.
    const rt = new OpenAIRealtimeWS(
      {
        model: 'gpt-4o-transcribe',
        options: { createConnection: (options) => createConnection(options as never) },
      },
      openai,
    );
    const transcripts: string[] = [];
    const errors: unknown[] = [];
    rt.on('error', (error) => errors.push(error));
    rt.on('conversation.item.input_audio_transcription.completed', (event) =>
      transcripts.push(event.transcript),
    );
    await new Promise<void>((resolve) => rt.socket.once('open', () => resolve()));
    rt.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'gpt-4o-transcribe', language: 'en' },
            turn_detection: { type: 'server_vad', silence_duration_ms: 500 },
          },
        },
      },
    });
    const audio = rawAudio(GO_FORWARD, 's16le', 24000);
    for (let offset = 0; offset < audio.length; offset += 9600) {
      rt.send({
        type: 'input_audio_buffer.append',
        audio: audio.subarray(offset, offset + 9600).toString('base64'),
      });
    }
    rt.send({ type: 'input_audio_buffer.commit' });
    await eventually('a transcript', async () => transcripts.length > 0, 30_000, 50);
    expect(transcripts[0]).toMatch(/^Go forward/);
    expect(errors).toEqual([]);
    rt.close();
  });

  it('refuses a missing or unknown credential with an error event and close 4001', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime auth' });
    for (const headers of [{}, bearer('svc_not-a-key'), bearer(`${workspace.apiKey}x`)]) {
      const client = RealtimeTestClient.connect(port, headers);
      const error = await client.next('error');
      expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'unauthorized' });
      expect(await client.whenClosed()).toEqual({ code: 4001, reason: 'unauthorized' });
    }
    // An access token works as an API key does.
    const client = connect(t.issueToken(workspace.userId));
    await client.next('session.created');
    client.socket.close();
  });

  it('answers a plain GET /v1/realtime with 426 upgrade-required (401 without a credential)', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime plain GET' });
    const plain = await t.http().get('/v1/realtime').set(bearer(workspace.apiKey));
    expectMatchesSpec(plain, 'openRealtimeSession');
    expect(plain.status).toBe(426);
    const anonymous = await t.http().get('/v1/realtime');
    expectMatchesSpec(anonymous, 'openRealtimeSession');
    expect(anonymous.status).toBe(401);
  });

  it('refuses a tier that cannot stream at open, naming it', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime tier' });
    const client = connect(workspace.apiKey, '?model=premium_jade');
    const error = await client.next('error');
    expect(error.error).toMatchObject({ code: 'invalid_session', param: 'model' });
    expect(String((error.error as { message: string }).message)).toMatch(
      /premium_jade tier runs openai-compatible/,
    );
    expect((await client.whenClosed()).code).toBe(4000);
    const listed = await t.http().get('/v1/transcriptions').set(bearer(workspace.apiKey));
    expect(listed.body.data).toEqual([]);
  });

  it('refuses a bad format, garbage JSON and unknown events with error events naming the field; the session goes on', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime refusals' });
    const client = connect(workspace.apiKey);
    await client.next('session.created');
    useFormat(client, { type: 'audio/pcm', rate: 44100 });
    useFormat(client, { type: 'audio/opus' });
    client.socket.send('{not json');
    client.send({ type: 'response.create' });
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { transcription: { language: 'de' } } } },
    });
    await client.next('error', 5);
    expect(
      client
        .of('error')
        .map((event) => [
          (event.error as { code: string }).code,
          (event.error as { param: string | null }).param,
        ]),
    ).toEqual([
      ['invalid_value', 'session.audio.input.format.rate'],
      ['invalid_value', 'session.audio.input.format.type'],
      ['invalid_json', null],
      ['unsupported_event', 'type'],
      ['invalid_value', 'session.audio.input.transcription.language'],
    ]);
    useFormat(client, { type: 'audio/pcm', rate: 16000 });
    const updated = await client.next('session.updated');
    expect(updated.session).toMatchObject({
      audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } },
    });
    expect(client.closed).toBeNull();
    client.socket.close();
  });

  it('closes with 1009 on a message over the size limit, keeping what was received', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime big frame' });
    const client = connect(workspace.apiKey);
    const transcriptionId = await client.transcriptionId();
    client.append(Buffer.alloc(MAX_MESSAGE_BYTES));
    const error = await client.next('error');
    expect(error.error).toMatchObject({ code: 'message_too_large' });
    expect((await client.whenClosed()).code).toBe(1009);
    await transcription(workspace.apiKey, transcriptionId);
  });

  it('limits open sessions per workspace (4029) and per process (1013, with a retry hint); idle sessions close (4008)', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime limits' });
    const other = await t.createWorkspace({ name: 'Realtime limits, other' });
    const late = await t.createWorkspace({ name: 'Realtime limits, late' });
    const first = connect(workspace.apiKey);
    const second = connect(workspace.apiKey);
    await Promise.all([first, second].map((client) => client.next('session.created')));
    const overWorkspace = connect(workspace.apiKey);
    expect((await overWorkspace.next('error')).error).toMatchObject({ code: 'too_many_sessions' });
    expect((await overWorkspace.whenClosed()).code).toBe(4029);
    const third = connect(other.apiKey);
    await third.next('session.created');
    // Three sessions are this process's capacity (REALTIME_MAX_SESSIONS): any workspace is refused.
    const overCapacity = connect(late.apiKey);
    expect((await overCapacity.next('error')).error).toMatchObject({
      code: 'server_busy',
      type: 'server_error',
      retry_after_ms: expect.any(Number),
    });
    expect((await overCapacity.whenClosed()).code).toBe(1013);
    // No speech for IDLE_TIMEOUT_MS: the open sessions are closed.
    for (const client of [first, second, third]) {
      expect(await client.whenClosed()).toEqual({ code: 4008, reason: 'idle_timeout' });
      expect(client.of('error').map((event) => (event.error as { code: string }).code)).toEqual([
        'idle_timeout',
      ]);
    }
  });

  it('refuses a workspace that cannot pay at open (4002) and closes a session when the balance is spent', async () => {
    const broke = await t.createWorkspace({ name: 'Realtime broke', freeTranscriptions: 0, balanceEur: 0 });
    const refused = connect(broke.apiKey);
    expect((await refused.next('error')).error).toMatchObject({ code: 'insufficient_balance' });
    expect((await refused.whenClosed()).code).toBe(4002);

    // The standard tier's default price is 0.003 EUR a minute: 0.0001 EUR pays for 2 s.
    const thin = await t.createWorkspace({
      name: 'Realtime thin',
      freeTranscriptions: 0,
      balanceEur: 0.0001,
    });
    const client = connect(thin.apiKey);
    const transcriptionId = await client.transcriptionId();
    useFormat(client, { type: 'audio/pcm', rate: 16000 });
    await client.stream(rawAudio(GO_FORWARD, 's16le', 16000), 32000, { chunkMs: 250, paced: false });
    expect((await client.next('error')).error).toMatchObject({ code: 'insufficient_balance' });
    expect((await client.whenClosed()).code).toBe(4002);
    const done = await transcription(thin.apiKey, transcriptionId);
    expect(done.duration).toBe(2);
  });

  it('closes the session when its transcription is deleted (4004)', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime deleted' });
    const client = connect(workspace.apiKey);
    const id = await client.transcriptionId();
    const deleted = await t.http().delete(`/v1/transcriptions/${id}`).set(bearer(workspace.apiKey));
    expect(deleted.status).toBe(204);
    expect((await client.next('error')).error).toMatchObject({ code: 'transcription_deleted' });
    expect((await client.whenClosed()).code).toBe(4004);
    const gone = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(workspace.apiKey));
    expect(gone.status).toBe(404);
  });
});
