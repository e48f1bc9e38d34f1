import { DataSource } from 'typeorm';
import { RealtimeSessionsService } from '../../src/realtime/realtime-sessions.service';
import { eventually } from '../support/eventually';
import { rawAudio, RealtimeTestClient } from '../support/realtime';
import { freePort, ServiceProcess } from '../support/service-process';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"

/**
 * Realtime sessions when their process stops, with real `node dist/main.js` processes: SIGTERM drains them
 * (told, stored, billed), and after a SIGKILL the reconciler settles what no process renews any more, from what
 * the lease recorded: completed and charged when text was delivered, failed unbilled when none was.
 */
describe('Realtime sessions and process faults', () => {
  let t: TestApp;
  beforeAll(async () => {
    // In-process app on the same database: reads the transcriptions and runs the reconciler.
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function state(apiKey: string, id: string) {
    const response = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
    return response.body.data as {
      status: string;
      resultText: string | null;
      cost: number | null;
      duration: number;
      errorMessage: string | null;
    };
  }

  it('SIGTERM closes an open session with 1001 after committing its utterance; text and audio are stored and billed', async () => {
    const port = await freePort();
    const service = await new ServiceProcess({ ROLE: 'api', PORT: String(port) }).start();
    const workspace = await t.createWorkspace({ name: 'Realtime SIGTERM', freeTranscriptions: 0 });
    const client = RealtimeTestClient.connect(port, bearer(workspace.apiKey));
    const id = await client.transcriptionId();
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    await client.next('session.updated');
    // Speech without the silence that would end it: the utterance is still open when the signal comes.
    await client.stream(rawAudio(GO_FORWARD, 's16le', 16000).subarray(0, 32000 * 2.2), 32000, {
      chunkMs: 200,
      paced: false,
    });
    await client.next('input_audio_buffer.speech_started');
    const exited = service.terminate('SIGTERM');
    const error = await client.next('error');
    expect(error.error).toMatchObject({ code: 'server_shutting_down', type: 'server_error' });
    expect(await client.whenClosed()).toEqual({ code: 1001, reason: 'server_shutting_down' });
    const completed = await client.next('conversation.item.input_audio_transcription.completed');
    expect(String(completed.transcript)).toMatch(/^Go forward/);
    expect(await exited).toEqual({ code: 0, signal: null });
    const stored = await state(workspace.apiKey, id);
    expect(stored).toMatchObject({ status: 'completed', resultText: completed.transcript, duration: 2.2 });
    expect(stored.cost).toBeGreaterThan(0);
  });

  /** Runs the reconciler (as any process does every 30 s) until the lost session has left `processing`. */
  async function reconciled(apiKey: string, id: string) {
    const sessions = t.app.get(RealtimeSessionsService);
    return eventually(
      'the reconciler settling the lost session',
      async () => {
        await sessions.reconcile();
        const current = await state(apiKey, id);
        return current.status !== 'processing' ? current : null;
      },
      30_000,
      500,
    );
  }

  it('after a SIGKILL the reconciler completes and charges a session that delivered text, from what its lease recorded', async () => {
    const port = await freePort();
    // A 3 s lease: renewed (with what was received and delivered) every second.
    const service = await new ServiceProcess({
      ROLE: 'api',
      PORT: String(port),
      REALTIME_SESSION_LEASE_SECONDS: '3',
    }).start();
    const workspace = await t.createWorkspace({ name: 'Realtime SIGKILL, delivered', freeTranscriptions: 0 });
    const client = RealtimeTestClient.connect(port, bearer(workspace.apiKey));
    const id = await client.transcriptionId();
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    await client.next('session.updated');
    const audio = Buffer.concat([rawAudio(GO_FORWARD, 's16le', 16000), Buffer.alloc(32000)]);
    await client.stream(audio, 32000, { chunkMs: 100, paced: false });
    const delivered = await client.next('conversation.item.input_audio_transcription.completed');
    // Killed once a renewal came after the delivery (the lease then ends more than 3 s after it).
    const db = t.app.get(DataSource);
    const [{ now }] = await db.query<Array<{ now: Date }>>('SELECT now() AS now');
    await eventually(
      'a renewal after the delivery',
      async () => {
        const [row] = await db.query<Array<{ renewed: boolean }>>(
          `SELECT live_until > $2::timestamptz + interval '3 seconds' AS renewed FROM transcriptions WHERE id = $1`,
          [id, now],
        );
        return row.renewed;
      },
      10_000,
      100,
    );
    service.kill();
    await client.whenClosed();
    expect((await state(workspace.apiKey, id)).status).toBe('processing');

    const done = await reconciled(workspace.apiKey, id);
    const seconds = audio.length / 32000;
    expect(done).toMatchObject({
      status: 'completed',
      resultText: delivered.transcript,
      duration: seconds,
      cost: (Math.ceil(seconds) * 50) / 1e6,
    });
    const ledger = await db.query<Array<{ amount_micro: string }>>(
      `SELECT amount_micro FROM balance_ledger WHERE transcription_id = $1 AND kind = 'charge'`,
      [id],
    );
    expect(ledger.map((row) => Number(row.amount_micro))).toEqual([-Math.ceil(seconds) * 50]);
  });

  it('after a SIGKILL the reconciler fails a session that delivered nothing, unbilled, once its lease has passed', async () => {
    const port = await freePort();
    const service = await new ServiceProcess({
      ROLE: 'api',
      PORT: String(port),
      REALTIME_SESSION_LEASE_SECONDS: '3',
    }).start();
    const workspace = await t.createWorkspace({ name: 'Realtime SIGKILL', freeTranscriptions: 0 });
    const client = RealtimeTestClient.connect(port, bearer(workspace.apiKey));
    const id = await client.transcriptionId();
    service.kill();
    await client.whenClosed();
    expect((await state(workspace.apiKey, id)).status).toBe('processing');
    const failed = await reconciled(workspace.apiKey, id);
    // Failed, so never billed; its duration (what the lease recorded: nothing) counts as unbilled audio.
    expect(failed).toMatchObject({
      status: 'failed',
      cost: null,
      duration: 0,
      errorMessage: expect.stringMatching(/^SESSION_LOST: /),
    });
  });
});
