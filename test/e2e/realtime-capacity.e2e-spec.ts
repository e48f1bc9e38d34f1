import { eventually } from '../support/eventually';
import { rawAudio, RealtimeTestClient } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"
const BYTES_PER_SECOND = 32_000; // PCM16 at 16 kHz
const CAPACITY = 4;
const IDLE_TIMEOUT_MS = 5000;
const WALL_SECONDS = 8;

/**
 * What one tenant can hold of a process's live capacity (issue 31): a workspace gets its share of the process's
 * sessions (half by default) and no more, so another workspace still gets in; a session ends after
 * REALTIME_MAX_SESSION_WALL_SECONDS whatever it received; idle means no speech, so appends of a few
 * milliseconds of silence do not keep a session (and its slot) alive.
 */
describe('Realtime sessions: what one tenant can hold of the live capacity', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({
      REALTIME_MAX_SESSIONS: String(CAPACITY),
      REALTIME_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      REALTIME_MAX_SESSION_WALL_SECONDS: String(WALL_SECONDS),
    });
    port = await t.listeningPort();
  });
  afterAll(() => t.close());

  const connect = (apiKey: string) => RealtimeTestClient.connect(port, bearer(apiKey));

  /** session.created, or the `error` code that refused the session. */
  async function outcome(client: RealtimeTestClient): Promise<string> {
    return eventually(
      'the session opened or refused',
      async () => {
        if (client.of('session.created').length > 0) return 'created';
        const error = client.of('error')[0];
        return error ? (error.error as { code: string }).code : null;
      },
      30_000,
      20,
    );
  }

  const pcmSession = (apiKey: string): Promise<RealtimeTestClient> =>
    RealtimeTestClient.pcmSession(port, bearer(apiKey));

  it("one workspace gets its share of the process's sessions (2 of 4), not all of them: another still gets in", async () => {
    const greedy = await t.createWorkspace({ name: 'Realtime share, greedy' });
    const other = await t.createWorkspace({ name: 'Realtime share, other' });
    // As many as the process serves, and within the workspace's own limit (REALTIME_MAX_SESSIONS_PER_WORKSPACE 4).
    const clients = Array.from({ length: CAPACITY }, () => connect(greedy.apiKey));
    const outcomes = await Promise.all(clients.map(outcome));
    expect(outcomes.sort()).toEqual(['created', 'created', 'too_many_sessions', 'too_many_sessions']);
    for (const client of clients.filter((candidate) => candidate.of('session.created').length === 0)) {
      expect(await client.whenClosed()).toEqual({ code: 4029, reason: 'too_many_sessions' });
      expect(String((client.of('error')[0].error as { message: string }).message)).toMatch(/its share/);
    }
    const late = connect(other.apiKey);
    expect(await outcome(late)).toBe('created');
    for (const client of [...clients, late]) client.socket.close();
  });

  it('closes a session kept alive only by tiny appends of silence: idle means no speech (4008)', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime idle, tiny appends' });
    const client = await pcmSession(workspace.apiKey);
    // 10 ms of silence every 200 ms, for up to four idle timeouts: audio keeps coming, speech never does.
    const tiny = Buffer.alloc(BYTES_PER_SECOND / 100);
    for (let append = 0; append < (4 * IDLE_TIMEOUT_MS) / 200 && !client.closed; append++) {
      client.append(tiny);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Closed while the appends were still coming: they did not keep the session open.
    expect(client.closed).toEqual({ code: 4008, reason: 'idle_timeout' });
    expect(client.of('error').map((event) => event.error)).toEqual([
      expect.objectContaining({ code: 'idle_timeout', message: expect.stringMatching(/No speech/) }),
    ]);
  });

  it('ends a session REALTIME_MAX_SESSION_WALL_SECONDS after its open while speech keeps coming (4009)', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime wall clock' });
    const client = await pcmSession(workspace.apiKey);
    const speech = rawAudio(GO_FORWARD, 's16le', 16000);
    // Speech at real time for up to four times the limit: never idle, far below the audio limit (3600 s).
    for (let loop = 0; loop < (4 * WALL_SECONDS) / 2.8 && !client.closed; loop++) {
      await client.stream(speech, BYTES_PER_SECOND, { chunkMs: 100, paced: true });
    }
    // Closed while speech was still coming.
    expect(client.closed).toEqual({ code: 4009, reason: 'session_expired' });
    expect(client.of('error').map((event) => event.error)).toEqual([
      expect.objectContaining({
        code: 'session_expired',
        message: expect.stringContaining(`${WALL_SECONDS} s from its open`),
      }),
    ]);
    // It was a live session until then: speech was recognised.
    expect(client.of('input_audio_buffer.speech_started').length).toBeGreaterThan(0);
  });
});
