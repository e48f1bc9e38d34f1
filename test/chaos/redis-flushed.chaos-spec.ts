import {
  createWorkspace,
  deleteRedisKeys,
  eventually,
  queueClips,
  registerWebhook,
  useChaosFixture,
} from '../support/chaos-harness';

const FIRST = ['pocketsphinx/goforward.wav', 'coqui-stt/LDC93S1.wav'];
const QUEUED = [
  'pocketsphinx/cards_005.wav',
  'speech-to-phrase/en_whats_the_weather_like_in_New_York.wav',
  'speechbrain/LJ050-0131.wav',
  'pocketsphinx/goforward.wav',
];

/**
 * Redis loses everything (restart without persistence) while transcription jobs wait in the queue and
 * webhook deliveries wait for their retry: PostgreSQL holds the truth, and the reconcilers of a worker put
 * every open transcription and every pending delivery back. Only this spec's own keys are deleted.
 */
describe('Chaos: Redis flushed with jobs queued and webhook deliveries pending', () => {
  const chaos = useChaosFixture('flushed', {
    env: { WORKER_CONCURRENCY: '2', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
  });
  const { env, prefix, processes, receiver } = chaos;

  it('re-enqueues every queued job and pending delivery from PostgreSQL; all complete and arrive', async () => {
    const workspace = createWorkspace('Chaos Redis flushed', 1);
    const api = await processes.api(env);
    await registerWebhook(api.url, workspace.apiKey, receiver.url('/hooks'), ['transcription.completed']);
    const uploadAll = (clips: string[]) => queueClips(api.url, workspace.apiKey, clips);
    const allIn = async (ids: string[], status: string) =>
      (await chaos.statusCounts(ids))[status] === ids.length;
    const deliveries = () => chaos.completedDeliveries(workspace.workspaceId);

    // 1. Two jobs complete while the receiver answers 503: their deliveries wait for a retry (delayed Bull jobs).
    receiver.answer = () => 503;
    const first = await processes.worker(env);
    const firstIds = await uploadAll(FIRST);
    await eventually(
      'the first two completing with a failed first delivery attempt each',
      async () => {
        const rows = await deliveries();
        return (
          (await allIn(firstIds, 'completed')) &&
          rows.length === 2 &&
          rows.every((row) => row.status === 'pending' && row.attempts.length === 1)
        );
      },
      60_000,
    );

    // 2. No worker: four more uploads wait in the queue.
    await first.stop();
    const queuedIds = await uploadAll(QUEUED);
    expect(await chaos.statusCounts(queuedIds)).toEqual({ queued: QUEUED.length });

    // 3. Redis loses every key of this deployment: queued jobs and delayed delivery retries are gone.
    const deleted = await deleteRedisKeys(prefix);
    expect(deleted).toBeGreaterThan(0);
    receiver.answer = () => 204;

    // 4. A new worker: its start-up reconcilers enqueue the open transcriptions and pending deliveries again.
    const restartedAt = Date.now();
    await processes.worker(env);
    const ids = [...firstIds, ...queuedIds];
    await eventually(
      'every transcription completed and every delivery delivered',
      async () => {
        const rows = await deliveries();
        return (
          (await allIn(queuedIds, 'completed')) &&
          rows.length === ids.length &&
          rows.every((row) => row.status === 'delivered')
        );
      },
      90_000,
      500,
    );
    console.log(`all jobs and deliveries done ${Date.now() - restartedAt} ms after the new worker started`);

    const rows = await deliveries();
    expect(rows.map((row) => row.transcription_id).sort()).toEqual([...ids].sort());
    for (const row of rows.filter((r) => firstIds.includes(r.transcription_id))) {
      // 503 until the flush (one attempt, two if the 5 s retry ran before the worker stopped), then 204.
      const codes = row.attempts.map((attempt) => attempt.statusCode);
      expect(codes[codes.length - 1]).toBe(204);
      expect(codes.slice(0, -1).every((code) => code === 503)).toBe(true);
      expect(codes.length).toBeGreaterThanOrEqual(2);
    }
    const accepted = receiver
      .of('transcription.completed')
      .filter((received) => received.arrivedAt >= restartedAt);
    expect(accepted.map((received) => received.body.data.id).sort()).toEqual([...ids].sort());

    // Billed once each, in spite of the lost queue.
    const charges = await chaos.charges(workspace.workspaceId);
    expect(charges.map((row) => row.transcription_id).sort()).toEqual([...ids].sort());
  }, 180_000);
});
