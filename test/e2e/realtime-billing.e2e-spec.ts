import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import { LiveRecognition } from '../../src/realtime/recognition/live-recognition';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { rawAudio, RealtimeTestClient } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload } from '../support/transcriptions';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"
const WITH_SILENCE = testAudio('kaldi-gstreamer-server/test_with_silence.wav'); // 10.3 s, phrases between pauses
const BYTES_PER_SECOND = 32_000; // PCM16 at 16 kHz
/** The standard tier's default price: 0.003 EUR a minute, 50 micro-EUR a started second. */
const STANDARD_MICRO_PER_SECOND = 50;
/** How much audio a paid session reserves ahead (REALTIME_RESERVATION_SECONDS), small to make sessions roll. */
const RESERVATION_SECONDS = 3;
/** Only bounds a hang: the session's backlog is decoded before it is settled, slow on a loaded machine. */
const SETTLE_DEADLINE_MS = 120_000;

const costMicro = (seconds: number): number => Math.ceil(seconds - 1e-9) * STANDARD_MICRO_PER_SECOND;

interface Detail {
  status: string;
  duration: number | null;
  cost: number | null;
  resultText: string | null;
  errorMessage: string | null;
}

/**
 * Who pays for a realtime session, on every path that ends it (issue 31, "High"): what a session delivered is
 * charged whether the client closes it, deletes its transcription, its recognition fails or its final write
 * does; each paid session holds what it may spend against the balance, so two sessions (or a session and a
 * file job) never spend the same euro. Real PocketSphinx, PostgreSQL and Redis; every server event is checked
 * against asyncapi.yaml, every HTTP answer against openapi.yaml. The lost process and the drain are in
 * realtime-faults.e2e-spec.ts; the rule itself in src/billing/live-session-settlement.spec.ts.
 */
describe('Realtime sessions: who pays on every end', () => {
  let t: TestApp;
  let port: number;
  let db: DataSource;
  beforeAll(async () => {
    t = await startTestApp({
      MINIMUM_BALANCE_EUR: '0.0001',
      REALTIME_RESERVATION_SECONDS: String(RESERVATION_SECONDS),
      REALTIME_MAX_SESSIONS: '6',
    });
    port = await t.listeningPort();
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  async function detail(apiKey: string, id: string): Promise<Detail> {
    const response = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
    expectMatchesSpec(response, 'getTranscription');
    return response.body.data as Detail;
  }

  async function settled(apiKey: string, id: string): Promise<Detail> {
    return eventually(
      'the session settled',
      async () => {
        const current = await detail(apiKey, id);
        return current.status === 'completed' || current.status === 'failed' ? current : null;
      },
      SETTLE_DEADLINE_MS,
      100,
    );
  }

  async function balance(apiKey: string): Promise<{ balance: number; freeTranscriptionsRemaining: number }> {
    const response = await t.http().get('/v1/account/balance').set(bearer(apiKey));
    expectMatchesSpec(response, 'getBalance');
    return response.body.data;
  }

  async function charges(workspaceId: string): Promise<Array<{ transcriptionId: string; micro: number }>> {
    const rows: Array<{ transcription_id: string; amount_micro: string }> = await db.query(
      `SELECT transcription_id, amount_micro FROM balance_ledger WHERE workspace_id = $1 AND kind = 'charge' ORDER BY created_on`,
      [workspaceId],
    );
    return rows.map((row) => ({ transcriptionId: row.transcription_id, micro: -Number(row.amount_micro) }));
  }

  async function pcmSession(apiKey: string): Promise<{ client: RealtimeTestClient; id: string }> {
    const client = RealtimeTestClient.connect(port, bearer(apiKey));
    const id = await client.transcriptionId();
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    await client.next('session.updated');
    return { client, id };
  }

  /** "go forward ten meters" and a second of silence that ends the utterance: one transcript delivered. */
  const speech = () => Buffer.concat([rawAudio(GO_FORWARD, 's16le', 16000), Buffer.alloc(BYTES_PER_SECOND)]);

  describe('deleting a live session', () => {
    it('settles what was received before the record goes: 204, close 4004, the charge stays in the ledger', async () => {
      const workspace = await t.createWorkspace({
        name: 'Delete live, paid',
        freeTranscriptions: 0,
        balanceEur: 1,
      });
      const { client, id } = await pcmSession(workspace.apiKey);
      const audio = speech();
      await client.stream(audio, BYTES_PER_SECOND, { chunkMs: 100, paced: false });
      const delivered = await client.next('conversation.item.input_audio_transcription.completed');
      expect(String(delivered.transcript)).toMatch(/^Go forward/);

      const deleted = await t.http().delete(`/v1/transcriptions/${id}`).set(bearer(workspace.apiKey));
      expectMatchesSpec(deleted, 'deleteTranscription');
      expect(deleted.status).toBe(204);
      expect(await client.whenClosed()).toEqual({ code: 4004, reason: 'transcription_deleted' });
      const gone = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(workspace.apiKey));
      expect(gone.status).toBe(404);

      // 3.8 s received: 4 started seconds at the standard price, charged once, and the entry outlives the record.
      const cost = costMicro(audio.length / BYTES_PER_SECOND);
      expect(await charges(workspace.workspaceId)).toEqual([{ transcriptionId: id, micro: cost }]);
      expect((await balance(workspace.apiKey)).balance).toBeCloseTo(1 - cost / 1e6, 9);
    });

    it('keeps the free transcription used once text was delivered; gives it back when nothing was', async () => {
      const workspace = await t.createWorkspace({
        name: 'Delete live, free',
        freeTranscriptions: 2,
        balanceEur: 0,
      });
      const spoken = await pcmSession(workspace.apiKey);
      await spoken.client.stream(speech(), BYTES_PER_SECOND, { chunkMs: 100, paced: false });
      await spoken.client.next('conversation.item.input_audio_transcription.completed');
      const silent = await pcmSession(workspace.apiKey);
      await silent.client.stream(Buffer.alloc(BYTES_PER_SECOND / 2), BYTES_PER_SECOND, {
        chunkMs: 100,
        paced: false,
      });
      expect((await balance(workspace.apiKey)).freeTranscriptionsRemaining).toBe(0);

      for (const { id } of [spoken, silent]) {
        const deleted = await t.http().delete(`/v1/transcriptions/${id}`).set(bearer(workspace.apiKey));
        expect(deleted.status).toBe(204);
      }
      expect(await spoken.client.whenClosed()).toEqual({ code: 4004, reason: 'transcription_deleted' });
      expect(await silent.client.whenClosed()).toEqual({ code: 4004, reason: 'transcription_deleted' });
      expect(silent.client.of('conversation.item.input_audio_transcription.completed')).toEqual([]);
      // The spoken session delivered a transcript: its free transcription stays used (cost 0, no charge).
      expect((await balance(workspace.apiKey)).freeTranscriptionsRemaining).toBe(1);
      expect(await charges(workspace.workspaceId)).toEqual([]);
    });
  });

  describe('ends after delivered text that used to be unbilled', () => {
    /** The recognition threads the sessions opened from here on start (to make one of them die). */
    function recognitionThreads(): { threads: LiveRecognition[]; restore: () => void } {
      const threads: LiveRecognition[] = [];
      const append = LiveRecognition.prototype.append;
      const spy = jest.spyOn(LiveRecognition.prototype, 'append').mockImplementation(function (
        this: LiveRecognition,
        samples: Int16Array,
      ) {
        if (!threads.includes(this)) threads.push(this);
        return append.call(this, samples);
      });
      return { threads, restore: () => spy.mockRestore() };
    }

    /**
     * Makes a session's recognition fail as a recogniser bug would: a request its thread throws on (the thread
     * reports `failed`; the session ends with `server_error`).
     */
    const breakRecognition = (recognition: LiveRecognition) =>
      (recognition as unknown as { worker: Worker }).worker.postMessage({ type: 'audio', samples: null });

    it('recognition failing after a transcript was delivered: completed, charged, duration set', async () => {
      const workspace = await t.createWorkspace({
        name: 'Engine fails late',
        freeTranscriptions: 0,
        balanceEur: 1,
      });
      const { threads, restore } = recognitionThreads();
      try {
        const { client, id } = await pcmSession(workspace.apiKey);
        const audio = speech();
        await client.stream(audio, BYTES_PER_SECOND, { chunkMs: 100, paced: false });
        const delivered = await client.next('conversation.item.input_audio_transcription.completed');
        expect(threads).toHaveLength(1);
        breakRecognition(threads[0]);
        expect((await client.next('error')).error).toMatchObject({ code: 'server_error' });
        expect((await client.whenClosed()).code).toBe(1011);

        const done = await settled(workspace.apiKey, id);
        const seconds = audio.length / BYTES_PER_SECOND;
        expect(done).toMatchObject({
          status: 'completed',
          duration: seconds,
          resultText: delivered.transcript,
          cost: costMicro(seconds) / 1e6,
        });
        expect(await charges(workspace.workspaceId)).toEqual([
          { transcriptionId: id, micro: costMicro(seconds) },
        ]);
      } finally {
        restore();
      }
    });

    it('recognition failing before anything was delivered: failed unbilled, its duration counted as unbilled audio', async () => {
      const workspace = await t.createWorkspace({
        name: 'Engine fails early',
        freeTranscriptions: 1,
        balanceEur: 0,
      });
      const { threads, restore } = recognitionThreads();
      try {
        const { client, id } = await pcmSession(workspace.apiKey);
        const silence = Buffer.alloc(BYTES_PER_SECOND);
        await client.stream(silence, BYTES_PER_SECOND, { chunkMs: 100, paced: false });
        await eventually('the thread took the audio', async () => threads.length === 1, 10_000, 20);
        breakRecognition(threads[0]);
        expect((await client.whenClosed()).code).toBe(1011);

        const done = await settled(workspace.apiKey, id);
        expect(done).toMatchObject({ status: 'failed', cost: null, duration: 1 });
        expect(done.errorMessage).toMatch(/^ENGINE_FAILED: /);
        expect((await balance(workspace.apiKey)).freeTranscriptionsRemaining).toBe(1);
      } finally {
        restore();
      }
    });
  });

  describe('what a session holds against the balance', () => {
    it('two sessions on a small balance: each is charged exactly its audio, together never more than the balance', async () => {
      // 500 micro-EUR: 10 s of standard audio in all; each session streams 10.3 s of speech, faster than real time.
      const workspace = await t.createWorkspace({
        name: 'Two sessions, one balance',
        freeTranscriptions: 0,
        balanceEur: 0.0005,
      });
      const audio = rawAudio(WITH_SILENCE, 's16le', 16000);
      const sessions = await Promise.all([pcmSession(workspace.apiKey), pcmSession(workspace.apiKey)]);
      await Promise.all(
        sessions.map(({ client }) => client.stream(audio, BYTES_PER_SECOND, { chunkMs: 100, paced: false })),
      );
      for (const { client } of sessions) {
        expect((await client.next('error')).error).toMatchObject({ code: 'insufficient_balance' });
        expect((await client.whenClosed()).code).toBe(4002);
      }
      const done = await Promise.all(sessions.map(({ id }) => settled(workspace.apiKey, id)));
      const delivered = sessions.map(
        ({ client }) => client.of('conversation.item.input_audio_transcription.completed').length,
      );
      // Both delivered and both completed; each charge is its own audio's cost.
      expect(done.map((session) => session.status)).toEqual(['completed', 'completed']);
      expect(delivered.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
      const ledger = await charges(workspace.workspaceId);
      expect(ledger.sort((a, b) => a.transcriptionId.localeCompare(b.transcriptionId))).toEqual(
        sessions
          .map(({ id }, index) => ({ transcriptionId: id, micro: costMicro(done[index].duration ?? 0) }))
          .sort((a, b) => a.transcriptionId.localeCompare(b.transcriptionId)),
      );
      const spent = ledger.reduce((sum, charge) => sum + charge.micro, 0);
      expect(spent).toBeLessThanOrEqual(500);
      expect((await balance(workspace.apiKey)).balance).toBeCloseTo((500 - spent) / 1e6, 9);
    });

    it('a file upload sees what an open session reserved (402 while it holds it, 202 once it is settled)', async () => {
      // 250 micro-EUR; the session reserves 3 s (150); goforward.wav costs 150 (3 started seconds).
      const workspace = await t.createWorkspace({
        name: 'Session and upload',
        freeTranscriptions: 0,
        balanceEur: 0.00025,
      });
      const { client, id } = await pcmSession(workspace.apiKey);
      const refused = await upload(t, workspace.apiKey, GO_FORWARD);
      expect(refused.status).toBe(402);
      expect(refused.body.detail).toMatch(/held by transcriptions in progress/);
      client.socket.close();
      expect((await settled(workspace.apiKey, id)).status).toBe('completed');
      const accepted = await upload(t, workspace.apiKey, GO_FORWARD);
      expect(accepted.status).toBe(202);
    });
  });

  describe('the session prompt', () => {
    const promptUpdate = (prompt: string) =>
      JSON.stringify({
        type: 'session.update',
        event_id: 'prompt',
        session: { type: 'transcription', audio: { input: { transcription: { prompt } } } },
      });

    it('session.update refuses a prompt with NUL, a lone surrogate or over 4000 characters, naming it', async () => {
      const workspace = await t.createWorkspace({ name: 'Prompt checks' });
      const { client, id } = await pcmSession(workspace.apiKey);
      client.socket.send(promptUpdate('names: Kubernetes\u0000gRPC'));
      // A lone surrogate can only be written as a JSON escape; JSON.stringify would write it as one too.
      client.socket.send(promptUpdate('x').replace('"x"', '"\\ud800"'));
      client.socket.send(promptUpdate('a'.repeat(900_000)));
      await client.next('error', 3);
      expect(
        client.of('error').map((event) => {
          const error = event.error as { code: string; param: string; message: string };
          return [error.code, error.param, error.message];
        }),
      ).toEqual([
        ['invalid_value', 'session.audio.input.transcription.prompt', expect.stringMatching(/NUL/)],
        ['invalid_value', 'session.audio.input.transcription.prompt', expect.stringMatching(/surrogate/)],
        ['invalid_value', 'session.audio.input.transcription.prompt', expect.stringMatching(/4000/)],
      ]);
      expect(client.of('session.updated')).toHaveLength(1);
      // A prompt of 4000 characters is taken and kept on the record.
      client.socket.send(promptUpdate('é'.repeat(4000)));
      await client.next('session.updated', 2);
      client.socket.close();
      expect((await settled(workspace.apiKey, id)).status).toBe('completed');
    });

    it('POST /v1/realtime/client_secrets refuses the same prompts with 422 naming the field', async () => {
      const workspace = await t.createWorkspace({ name: 'Prompt checks, secrets' });
      for (const prompt of ['a\u0000b', 'a'.repeat(900_000)]) {
        const response = await t
          .http()
          .post('/v1/realtime/client_secrets')
          .set(bearer(workspace.apiKey))
          .send({ session: { type: 'transcription', audio: { input: { transcription: { prompt } } } } });
        expectMatchesSpec(response, 'createRealtimeClientSecret');
        expect({
          status: response.status,
          fields: Object.keys(response.body.errors?.fieldErrors ?? {}),
        }).toEqual({
          status: 422,
          fields: ['session.audio.input.transcription.prompt'],
        });
      }
    });
  });
});

describe('Realtime sessions: a final write that fails still settles', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    // The storage root is a regular file: storing the session's audio fails, as a full or broken store does.
    const storageRoot = join(mkdtempSync(join(tmpdir(), 'stt-realtime-store-')), 'not-a-directory');
    writeFileSync(storageRoot, 'not a directory');
    t = await startTestApp({ STORAGE_DIR: storageRoot });
    port = await t.listeningPort();
  });
  afterAll(() => t.close());

  it('completes and charges the delivered session without its audio', async () => {
    const workspace = await t.createWorkspace({ name: 'Store fails', freeTranscriptions: 0, balanceEur: 1 });
    const client = RealtimeTestClient.connect(port, bearer(workspace.apiKey));
    const id = await client.transcriptionId();
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    await client.next('session.updated');
    const audio = Buffer.concat([rawAudio(GO_FORWARD, 's16le', 16000), Buffer.alloc(BYTES_PER_SECOND)]);
    await client.stream(audio, BYTES_PER_SECOND, { chunkMs: 100, paced: false });
    const delivered = await client.next('conversation.item.input_audio_transcription.completed');
    client.socket.close();

    const done = await eventually(
      'the session settled',
      async () => {
        const response = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(workspace.apiKey));
        expectMatchesSpec(response, 'getTranscription');
        return response.body.data.status !== 'processing' ? (response.body.data as Detail) : null;
      },
      SETTLE_DEADLINE_MS,
      100,
    );
    const seconds = audio.length / BYTES_PER_SECOND;
    expect(done).toMatchObject({
      status: 'completed',
      duration: seconds,
      resultText: delivered.transcript,
      cost: costMicro(seconds) / 1e6,
    });
    // The audio could not be stored: the record says so (410), the transcript and the charge stand.
    const stored = await t.http().get(`/v1/transcriptions/${id}/audio`).set(bearer(workspace.apiKey));
    expectMatchesSpec(stored, 'getTranscriptionAudio');
    expect(stored.status).toBe(410);
  });
});
