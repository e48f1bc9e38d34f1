import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { eventually } from '../support/chaos-harness';
import { expectMatchesSpec } from '../support/openapi-contract';
import { freePort, ServiceProcess } from '../support/service-process';
import { TcpFaultProxy } from '../support/tcp-fault-proxy';
import { baseTestEnvironment } from '../support/test-environment';
import { writeSyntheticWhisperModel } from '../support/whisper-cpp/synthetic-whisper-model';

type ReadinessBody = {
  status: string;
  checks: Record<string, { status: string; message?: string }>;
  failing?: string[];
};

/**
 * GET /v1/health/ready on a real `node dist/main.js` whose Redis goes through a fault proxy, whose upload
 * directory the test can break and whose premium tier runs whisper.cpp on a model file the test can remove: 200
 * with every part up, then 503 naming exactly the broken part, while liveness (GET /v1/health) keeps answering
 * 200.
 */
describe('Readiness probe (node dist/main.js)', () => {
  const storageDir = join(tmpdir(), `stt-ready-${randomUUID()}`);
  const premiumModel = join(tmpdir(), `stt-ready-model-${randomUUID()}.bin`);
  let redisProxy: TcpFaultProxy;
  let api: ServiceProcess;
  let url: string;

  beforeAll(async () => {
    mkdirSync(storageDir, { recursive: true });
    writeSyntheticWhisperModel(premiumModel);
    redisProxy = await new TcpFaultProxy(
      Number(new URL(baseTestEnvironment().REDIS_URL).port || 6379),
    ).start();
    const port = await freePort();
    api = await new ServiceProcess({
      ROLE: 'api',
      PORT: String(port),
      STORAGE_DIR: storageDir,
      REDIS_URL: redisProxy.rewrite(baseTestEnvironment().REDIS_URL),
      REDIS_PREFIX: `stt-test-ready-${randomUUID()}`,
      ENGINE_RECOGNIZER_PREMIUM: 'whisper-cpp',
      WHISPER_CPP_MODEL_PREMIUM: premiumModel,
      WHISPER_CPP_BIN_DIR:
        process.env.WHISPER_CPP_BIN_DIR ?? join(__dirname, '..', '..', '.tools', 'whisper.cpp', 'bin'),
    }).start();
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await api?.stop();
    await redisProxy?.stop();
    rmSync(storageDir, { recursive: true, force: true });
    rmSync(premiumModel, { force: true });
  });

  const ready = () => request(url).get('/v1/health/ready');
  const failingWhenNotReady = async (): Promise<string[] | false> => {
    const response = await ready();
    return response.status === 503 && ((response.body as ReadinessBody).failing ?? false);
  };

  it('answers 200 with every part up, without a credential', async () => {
    const response = await ready();
    expect(response.status).toBe(200);
    expectMatchesSpec(response, 'getReadiness');
    const body = response.body as ReadinessBody;
    expect(body.status).toBe('ok');
    expect(Object.keys(body.checks).sort()).toEqual([
      'database',
      'recognizer_premium',
      'recognizer_premium_jade',
      'recognizer_standard',
      'redis',
      'storage',
    ]);
    expect(Object.values(body.checks).every((check) => check.status === 'up')).toBe(true);
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('answers 503 naming redis while Redis is unreachable; liveness stays 200', async () => {
    await redisProxy.setMode('reset');
    try {
      const failing = await eventually('readiness 503', failingWhenNotReady, 15_000, 200);
      expect(failing).toEqual(['redis']);
      const response = await ready();
      expect(response.status).toBe(503);
      expectMatchesSpec(response, 'getReadiness');
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((response.body as ReadinessBody).checks.database.status).toBe('up');
      expect((await request(url).get('/v1/health')).status).toBe(200);
    } finally {
      await redisProxy.setMode('pass');
    }
    await eventually('readiness 200 again', async () => (await ready()).status === 200, 15_000, 200);
  });

  it('answers 503 naming storage while the upload directory cannot take a file', async () => {
    // A regular file where the directory should be: no file can be written below it, even by root.
    rmSync(storageDir, { recursive: true, force: true });
    writeFileSync(storageDir, 'not a directory');
    try {
      const response = await ready();
      expect(response.status).toBe(503);
      expectMatchesSpec(response, 'getReadiness');
      expect((response.body as ReadinessBody).failing).toEqual(['storage']);
    } finally {
      rmSync(storageDir, { force: true });
      mkdirSync(storageDir, { recursive: true });
    }
    expect((await ready()).status).toBe(200);
  });

  it('answers 503 naming the tier whose recogniser lost its model file, and 200 once it is back', async () => {
    expect((await ready()).body).toMatchObject({
      checks: { recognizer_premium: { status: 'up', recognizer: 'whisper-cpp' } },
    });
    rmSync(premiumModel);
    try {
      // Recogniser checks are reused for 5 s (files change only on deployment).
      const failing = await eventually('readiness 503', failingWhenNotReady, 15_000, 250);
      expect(failing).toEqual(['recognizer_premium']);
      const response = await ready();
      expectMatchesSpec(response, 'getReadiness');
      const { checks } = response.body as ReadinessBody;
      expect(checks.recognizer_premium.message).toContain(`whisper model ${premiumModel} is missing`);
      expect(checks.recognizer_standard.status).toBe('up');
    } finally {
      writeSyntheticWhisperModel(premiumModel);
    }
    await eventually('readiness 200 again', async () => (await ready()).status === 200, 15_000, 250);
  });
});
