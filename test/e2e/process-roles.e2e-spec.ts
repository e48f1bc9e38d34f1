import Redis from 'ioredis';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { TranscriptionDispatcher } from '../../src/transcriptions/transcription-dispatcher.service';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { freePort, ServiceProcess } from '../support/service-process';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { RedisConfig } from '../../src/common/redis/redis.config';

/**
 * Scale-out by process role: `ROLE=api` processes only serve HTTP, `ROLE=worker` processes only run jobs,
 * all sharing PostgreSQL and Redis. Also: a Redis that lost every queued job loses no transcription.
 */
describe('Process roles (node dist/main.js)', () => {
  const prefix = `stt-test-roles-${randomUUID()}`;
  /** Every process of this deployment: a killed worker's job is back in the queue within 8-16 s. */
  const deployment = { REDIS_PREFIX: prefix, JOB_LOCK_SECONDS: '8' };
  let provisioning: TestApp;
  let apiKey: string;
  let api: ServiceProcess;
  let apiUrl: string;
  const workers: ServiceProcess[] = [];

  beforeAll(async () => {
    provisioning = await startTestApp({ ROLE: 'api', REDIS_PREFIX: prefix });
    ({ apiKey } = await provisioning.createWorkspace({
      name: 'Roles',
      balanceEur: 1,
      freeTranscriptions: 0,
    }));
    const port = await freePort();
    api = await new ServiceProcess({ ROLE: 'api', PORT: String(port), ...deployment }).start();
    apiUrl = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await Promise.all([api.stop(), ...workers.map((worker) => worker.stop())]);
    await provisioning.close();
  });

  const http = () => request(apiUrl);

  async function waitForStatus(id: string, wanted: string[], timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await http().get(`/v1/transcriptions/${id}/status`).set(bearer(apiKey));
      if (wanted.includes(response.body.data.status)) return response.body.data.status as string;
      if (Date.now() > deadline) throw new Error(`${id} stayed ${response.body.data.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** The job uploaded while only API processes ran; the next test checks who finally ran it. */
  let apiOnlyJob: string;

  it('an API-only process accepts uploads but runs no job', async () => {
    const health = await http().get('/v1/health');
    expect(health.status).toBe(200);
    expectMatchesSpec(health, 'getHealth');
    const created = await http()
      .post('/v1/transcriptions')
      .set(bearer(apiKey))
      .attach('file', testAudio('pocketsphinx/goforward.wav'));
    expect(created.status).toBe(202);
    apiOnlyJob = created.body.data.id as string;
    // Handed over: its Bull job sits in the wait list, where a worker of this prefix would take it at once.
    const queue = provisioning.app.get(TranscriptionDispatcher).queue;
    await eventually(
      'the job waiting in the Bull queue',
      async () => (await (await queue.getJob(apiOnlyJob))?.getState()) === 'waiting',
      10_000,
    );
    const status = await http().get(`/v1/transcriptions/${apiOnlyJob}/status`).set(bearer(apiKey));
    expect(status.body.data.status).toBe('queued');
    // That it stays untouched until a worker exists is checked in the next test: started once, by that worker.
  });

  it('a worker-only process picks queued jobs up; Redis losing the queue loses nothing', async () => {
    const ids: string[] = [];
    for (const clip of ['pocketsphinx/goforward.wav', 'coqui-stt/LDC93S1.wav']) {
      const created = await http()
        .post('/v1/transcriptions')
        .set(bearer(apiKey))
        .attach('file', testAudio(clip));
      ids.push(created.body.data.id);
    }
    // Every Bull key of this deployment disappears, as after a Redis restart without persistence.
    const redis = new Redis(provisioning.config.get(RedisConfig).REDIS_URL);
    const keys = await redis.keys(`${prefix}:bull:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    await redis.quit();

    const database = provisioning.app.get(DataSource);
    const [{ now: beforeWorker }] = await database.query<Array<{ now: Date }>>('SELECT now()');
    const worker = await new ServiceProcess({
      ROLE: 'worker',
      ...deployment,
      WORKER_CONCURRENCY: '2',
    }).start();
    workers.push(worker);
    const all = await http().get('/v1/transcriptions?limit=100').set(bearer(apiKey));
    for (const item of all.body.data as Array<{ id: string }>) {
      expect(await waitForStatus(item.id, ['completed', 'failed'])).toBe('completed');
    }
    expect(all.body.data.length).toBe(3);
    expect(ids).toHaveLength(2);
    // The previous test's job waited in the queue the whole time the API processes ran: had either of them
    // run jobs, it would have started it then. It was started once, after the worker came up.
    const [started] = await database.query<Array<{ attempts: number; started_at: Date }>>(
      'SELECT attempts, started_at FROM transcriptions WHERE id = $1',
      [apiOnlyJob],
    );
    expect(started.attempts).toBe(1);
    expect(started.started_at.getTime()).toBeGreaterThan(beforeWorker.getTime());
  });

  it('a worker killed mid-job (SIGKILL) does not lose the job: another worker completes it, billed once', async () => {
    const created = await http()
      .post('/v1/transcriptions')
      .set(bearer(apiKey))
      .attach('file', testAudio('faster-whisper/multilingual.mp3'));
    const id = created.body.data.id as string;
    await waitForStatus(id, ['processing']);
    const engineChildren = execFileSync('ps', ['-o', 'pid=', '--ppid', String(workers[0].pid)], {
      encoding: 'utf8',
    })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
    expect(engineChildren.length).toBeGreaterThan(0);
    workers[0].kill();
    // The orphaned engine child notices the lost IPC channel between chunks and exits.
    const orphanDeadline = Date.now() + 30_000;
    while (engineChildren.some(isRunning)) {
      if (Date.now() > orphanDeadline)
        throw new Error(`engine child outlived its worker: ${engineChildren.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const replacement = await new ServiceProcess({ ROLE: 'worker', ...deployment }).start();
    workers.push(replacement);
    // Bull hands a stalled job (its lock lapsed) back to the queue; the replacement finishes it.
    expect(await waitForStatus(id, ['completed', 'failed'], 120_000)).toBe('completed');
    const detail = await http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
    expect(detail.body.data.cost).toBeCloseTo(0.003, 6);
    const balance = await http().get('/v1/account/balance').set(bearer(apiKey));
    expectMatchesSpec(balance, 'getBalance');
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
