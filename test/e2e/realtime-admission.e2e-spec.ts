import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import {
  LIVE_SESSION_CPU_PER_AUDIO_SECOND,
  liveSessionCapacity,
} from '../../src/realtime/recognition/live-decoding';
import { eventually } from '../support/eventually';
import { rawAudio, RealtimeTestClient } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"

/**
 * Issue 36: the live capacity comes from the machine the process runs on. With REALTIME_MAX_SESSIONS unset the
 * process reads its sessions' recognition threads (CPU time, decoded audio) and derives its capacity from what a
 * session costs here; /metrics shows both. The benchmark machine's figure is only where it starts.
 */
describe('Realtime admission from the measured cost of a session (REALTIME_MAX_SESSIONS unset)', () => {
  const token = `metrics-${randomUUID()}`;
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    // The test environment fixes the capacity for every other suite; this one unsets it, so it is measured.
    t = await startTestApp({ METRICS_TOKEN: token, REALTIME_MAX_SESSIONS: undefined });
    port = await t.listeningPort();
  });
  afterAll(() => t.close());

  async function gauges(): Promise<{ capacity: number; cost: number }> {
    const text = (await t.http().get('/metrics').set(bearer(token))).text;
    const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    return {
      capacity: value('stt_realtime_capacity_sessions'),
      cost: value('stt_realtime_session_cpu_seconds_per_audio_second'),
    };
  }

  it('starts from the benchmark figure, then measures its own sessions and sizes its capacity from them', async () => {
    const cores = availableParallelism();
    expect(await gauges()).toEqual({
      capacity: liveSessionCapacity(cores),
      cost: LIVE_SESSION_CPU_PER_AUDIO_SECOND,
    });

    const workspace = await t.createWorkspace({ name: 'Realtime admission', balanceEur: 5 });
    const client = await RealtimeTestClient.pcmSession(port, bearer(workspace.apiKey));
    const speech = rawAudio(GO_FORWARD, 's16le', 16000);
    // 22 s of speech at once: the thread decodes it over several of the process's 2 s readings.
    for (let repeat = 0; repeat < 8; repeat++) client.append(speech);

    const measured = await eventually(
      'the cost measured from the session',
      async () => {
        const now = await gauges();
        return now.cost !== LIVE_SESSION_CPU_PER_AUDIO_SECOND ? now : null;
      },
      90_000,
      200,
    );
    // A real figure of this machine (PocketSphinx with the VAD takes a fraction of a CPU second per audio
    // second, not nothing) and the capacity the cores sustain at it.
    expect(measured.cost).toBeGreaterThan(0.01);
    expect(measured.cost).toBeLessThan(5);
    expect(measured.capacity).toBe(liveSessionCapacity(cores, measured.cost));
    client.socket.close();
  }, 120_000);
});
