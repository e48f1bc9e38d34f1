import { DataSource } from 'typeorm';
import { Transcription } from '../../src/transcriptions/transcription.entity';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload, waitForTerminal } from '../support/transcriptions';

/**
 * Fair share of the workers (MAX_ACTIVE_JOBS_PER_WORKSPACE): two worker slots, a cap of one job per workspace.
 * Order is asserted from what the service recorded (statuses, start and end times), never from wall-clock limits.
 */
describe('Fair share of the workers between workspaces', () => {
  let t: TestApp;
  // A short clip (2.8 s): the jobs run one after another, so their length is the test's length.
  const clip = (): string => testAudio('pocketsphinx/goforward.wav');
  const JOB_DEADLINE_MS = 300_000;

  beforeAll(async () => {
    t = await startTestApp({ WORKER_CONCURRENCY: '2', MAX_ACTIVE_JOBS_PER_WORKSPACE: '1' });
  });
  afterAll(() => t.close());

  async function accepted(apiKey: string, fields: Record<string, string> = {}): Promise<string> {
    const response = await upload(t, apiKey, clip(), fields);
    expect(response.status).toBe(202);
    return response.body.data.id as string;
  }

  async function statusOf(apiKey: string, id: string): Promise<string> {
    const response = await t.http().get(`/v1/transcriptions/${id}/status`).set(bearer(apiKey));
    expectMatchesSpec(response, 'getTranscriptionStatus');
    return response.body.data.status as string;
  }

  async function records(ids: string[]): Promise<Transcription[]> {
    const rows = await t.app
      .get(DataSource)
      .getRepository(Transcription)
      .find({ where: ids.map((id) => ({ id })) });
    return ids.map((id) => rows.find((row) => row.id === id) as Transcription);
  }

  it(
    "a workspace's backlog does not hold up another workspace's job, and never takes more than its cap",
    async () => {
      const busy = await t.createWorkspace({ name: 'Busy', balanceEur: 1, freeTranscriptions: 0 });
      const other = await t.createWorkspace({ name: 'Other', balanceEur: 1, freeTranscriptions: 0 });
      const backlog: string[] = [];
      for (let index = 0; index < 4; index++) backlog.push(await accepted(busy.apiKey));
      const single = await accepted(other.apiKey);

      expect((await waitForTerminal(t, other.apiKey, single, JOB_DEADLINE_MS)).status).toBe('completed');
      // The other workspace's job is done while the busy workspace still has jobs waiting (FIFO would have run
      // all four of them first: they were queued earlier).
      const backlogStatuses = await Promise.all(backlog.map((id) => statusOf(busy.apiKey, id)));
      expect(backlogStatuses).toContain('queued');

      for (const id of backlog)
        expect((await waitForTerminal(t, busy.apiKey, id, JOB_DEADLINE_MS)).status).toBe('completed');
      const [singleRecord] = await records([single]);
      const backlogRecords = await records(backlog);
      // Started before the busy workspace's queue drained.
      const lastBacklogStart = Math.max(...backlogRecords.map((row) => (row.startedAt as Date).getTime()));
      expect((singleRecord.startedAt as Date).getTime()).toBeLessThan(lastBacklogStart);
      // With two worker slots free, the busy workspace still ran one job at a time (the cap), in upload order,
      // each exactly once.
      for (let index = 1; index < backlogRecords.length; index++) {
        expect((backlogRecords[index].startedAt as Date).getTime()).toBeGreaterThanOrEqual(
          (backlogRecords[index - 1].completedAt as Date).getTime(),
        );
      }
      expect(backlogRecords.map((row) => row.attempts)).toEqual([1, 1, 1, 1]);
    },
    4 * JOB_DEADLINE_MS,
  );

  it(
    'keeps tier priority within a workspace: a premium job goes ahead of its waiting standard jobs',
    async () => {
      const { apiKey } = await t.createWorkspace({ name: 'Tiers', balanceEur: 1, freeTranscriptions: 0 });
      const standard: string[] = [];
      for (let index = 0; index < 3; index++) standard.push(await accepted(apiKey));
      const premium = await accepted(apiKey, { model: 'premium' });
      for (const id of [...standard, premium]) {
        expect((await waitForTerminal(t, apiKey, id, JOB_DEADLINE_MS)).status).toBe('completed');
      }
      const [premiumRecord] = await records([premium]);
      const standardRecords = await records(standard);
      // Uploaded last, started before the last standard job it was queued behind.
      expect((premiumRecord.startedAt as Date).getTime()).toBeLessThan(
        (standardRecords[2].startedAt as Date).getTime(),
      );
    },
    4 * JOB_DEADLINE_MS,
  );
});
