import { deliveryJobId } from '../../src/webhooks/webhook-delivery-queue.service';
import {
  createWorkspace,
  eventually,
  registerWebhook,
  uploadClip,
  useChaosFixture,
} from '../support/chaos-harness';
import { freePort } from '../support/service-process';
import { watchScheduledRetries } from '../support/settled-work';

interface Attempt {
  at: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/**
 * A receiver that is down (connection refused). Answers 500 / 410 / slower than 10 s are covered with
 * measured gaps in test/e2e/webhook-deliveries.e2e-spec.ts; what is missing there is a receiver that cannot
 * be reached at all, for all three attempts (→ failed), and one that comes back between attempts.
 */
describe('Chaos: webhook receiver down', () => {
  // The receiver is the one that comes back: it starts only after the first refused attempt.
  const chaos = useChaosFixture('receiver-down', {
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    startReceiver: false,
  });
  const { env, processes, receiver: returning } = chaos;

  it('refused connections: 3 attempts with ~5 s and ~10 s waits, then failed; a receiver back in time gets it', async () => {
    const workspace = createWorkspace('Chaos receiver down', 1);
    const api = await processes.api(env);
    await processes.worker(env);
    // Nothing listens on either port (taken free, then released); the second comes up after one attempt.
    const downPort = await freePort();
    const returningPort = await freePort();
    const down = await registerWebhook(api.url, workspace.apiKey, `http://127.0.0.1:${downPort}/down`, [
      'transcription.completed',
    ]);
    const back = await registerWebhook(api.url, workspace.apiKey, `http://127.0.0.1:${returningPort}/back`, [
      'transcription.completed',
    ]);

    const retries = watchScheduledRetries(chaos.queues);
    const upload = await uploadClip(api.url, workspace.apiKey, 'pocketsphinx/goforward.wav');
    expect(upload.status).toBe(202);

    const deliveryTo = async (endpointId: string) =>
      (
        await chaos.database.query<{ id: string; status: string; attempts: Attempt[] }>(
          'SELECT id, status, attempts FROM webhook_deliveries WHERE endpoint_id = $1',
          [endpointId],
        )
      ).rows;

    await eventually(
      'the first refused attempt to the returning receiver',
      async () => (await deliveryTo(back))[0]?.attempts.length === 1,
      60_000,
      100,
    );
    await returning.start(returningPort);

    const [failed] = await eventually(
      'the delivery to the dead receiver failing',
      async () => {
        const rows = await deliveryTo(down);
        return rows.length === 1 && rows[0].status === 'failed' && rows;
      },
      40_000,
      250,
    );
    await retries.stop();
    expect(failed.attempts).toHaveLength(3);
    for (const attempt of failed.attempts) {
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toMatch(/^connection error: .*ECONNREFUSED/);
    }
    // Waits are counted from the end of the failed attempt: scheduled 5 s after the first, 10 s after the
    // second, and never run sooner; how much later depends on the machine's load, so no upper bound.
    expect([2, 3].map((attempt) => retries.delays.get(deliveryJobId(failed.id, attempt)))).toEqual([
      5_000, 10_000,
    ]);
    const waits = [0, 1].map((i) => {
      const endOfAttempt = Date.parse(failed.attempts[i].at) + failed.attempts[i].durationMs;
      return Date.parse(failed.attempts[i + 1].at) - endOfAttempt;
    });
    console.log(`refused receiver: waits ${waits.map((wait) => `${wait} ms`).join(', ')}, then failed`);
    expect(waits[0]).toBeGreaterThanOrEqual(4_900);
    expect(waits[1]).toBeGreaterThanOrEqual(9_900);

    const [recovered] = await deliveryTo(back);
    expect(recovered.status).toBe('delivered');
    expect(recovered.attempts.map((attempt) => attempt.statusCode)).toEqual([null, 204]);
    expect(returning.of('transcription.completed')).toHaveLength(1);
    expect(returning.received[0].deliveryId).toBe(recovered.id);
    expect(returning.received[0].body.data.id).toBe(upload.body.data.id);
  }, 120_000);
});
