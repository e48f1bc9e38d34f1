import { randomUUID } from 'node:crypto';
import { get as httpGet } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { expectMatchesSpec } from '../support/openapi-contract';
import { startS3Emulator, type S3Emulator } from '../support/s3-emulator';
import { freePort, ServiceProcess } from '../support/service-process';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const RATE_LIMIT = 30;
const METRICS_TOKEN = `multi-instance-${randomUUID()}`;
const CLIPS = ['pocketsphinx/goforward.wav', 'coqui-stt/LDC93S1.wav'];
const JOBS = 6;

interface Frame {
  status: string;
  progress: number;
}

/** Reads an SSE stream to its end (the server closes it after a terminal status); bounded in time. */
function readEvents(baseUrl: string, path: string, apiKey: string, timeoutMs = 60_000): Promise<Frame[]> {
  return new Promise((resolve, reject) => {
    const frames: Frame[] = [];
    let buffer = '';
    const call = httpGet(
      `${baseUrl}${path}`,
      { headers: { ...bearer(apiKey), Accept: 'text/event-stream' } },
      (response) => {
        response.setEncoding('utf8');
        if (response.statusCode !== 200) {
          let body = '';
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => reject(new Error(`SSE answered ${response.statusCode}: ${body}`)));
          return;
        }
        response.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of block.split('\n')) {
              if (line.startsWith('data: ')) frames.push(JSON.parse(line.slice(6)) as Frame);
            }
          }
        });
        response.on('end', () => resolve(frames));
      },
    );
    call.on('error', reject);
    call.setTimeout(timeoutMs, () => call.destroy(new Error(`SSE ${path} still open after ${timeoutMs} ms`)));
  });
}

/** Sums a counter's samples whose labels contain every given `name="value"` pair. */
function sumSamples(metricsText: string, name: string, labels: string[]): number {
  return metricsText
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)))
    .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * Two API processes and two worker processes (real `node dist/main.js`, ROLE=api / ROLE=worker) sharing one
 * PostgreSQL, one Redis prefix and one S3 endpoint: uploads through API #1, SSE through API #2, rate limits
 * counted once across both APIs, every job run exactly once by one of the two workers.
 */
describe('Multi-instance deployment: 2 API + 2 worker processes, shared PostgreSQL, Redis and S3', () => {
  const prefix = `stt-test-multi-${randomUUID()}`;
  const started = Date.now();
  let emulator: S3Emulator;
  let provisioning: TestApp;
  const apis: Array<{ process: ServiceProcess; url: string }> = [];
  const workers: Array<{ process: ServiceProcess; metricsUrl: string }> = [];

  beforeAll(async () => {
    emulator = await startS3Emulator();
    const shared = {
      REDIS_PREFIX: prefix,
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: String(RATE_LIMIT),
      METRICS_TOKEN,
      ...emulator.env,
    };
    provisioning = await startTestApp({ ROLE: 'api', ...shared });
    const apiPorts = [await freePort(), await freePort()];
    const metricsPorts = [await freePort(), await freePort()];
    const [api1, api2, worker1, worker2] = await Promise.all([
      ...apiPorts.map((port) => new ServiceProcess({ ...shared, ROLE: 'api', PORT: String(port) }).start()),
      ...metricsPorts.map((port) =>
        new ServiceProcess({ ...shared, ROLE: 'worker', METRICS_PORT: String(port) }).start(),
      ),
    ]);
    apis.push(
      { process: api1, url: `http://127.0.0.1:${apiPorts[0]}` },
      { process: api2, url: `http://127.0.0.1:${apiPorts[1]}` },
    );
    workers.push(
      { process: worker1, metricsUrl: `http://127.0.0.1:${metricsPorts[0]}` },
      { process: worker2, metricsUrl: `http://127.0.0.1:${metricsPorts[1]}` },
    );
  });
  afterAll(async () => {
    await Promise.all([...apis, ...workers].map(({ process }) => process.stop()));
    await provisioning?.close();
    await emulator?.stop();
    process.stdout.write(`multi-instance suite: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  });

  it('uploads through API #1 are followed over SSE on API #2 to completed, each job run once and billed once', async () => {
    const { apiKey } = await provisioning.createWorkspace({
      name: 'Multi jobs',
      balanceEur: 5,
      freeTranscriptions: 0,
    });
    const ids: string[] = [];
    for (let index = 0; index < JOBS; index += 1) {
      const created = await request(apis[0].url)
        .post('/v1/transcriptions')
        .set(bearer(apiKey))
        .attach('file', testAudio(CLIPS[index % CLIPS.length]));
      expectMatchesSpec(created, 'createTranscription');
      expect(created.status).toBe(202);
      ids.push(created.body.data.id as string);
    }

    const streams = await Promise.all(
      ids.map((id) => readEvents(apis[1].url, `/v1/transcriptions/${id}/events`, apiKey)),
    ).catch((error: Error) => {
      // The API's own log line (with the error id) makes a failure here diagnosable.
      const logged = apis[1].process.output
        .split('\n')
        .filter((line) => /"level":"error"|errorId/.test(line));
      throw new Error(`${error.message}\nAPI #2 logged:\n${logged.join('\n')}`);
    });
    for (const frames of streams) {
      expect(frames.at(-1)).toEqual({ status: 'completed', progress: 100 });
      expect(frames.slice(0, -1).every((frame) => ['queued', 'processing'].includes(frame.status))).toBe(
        true,
      );
    }
    // The streams saw the work itself, not only its end.
    expect(streams.some((frames) => frames.some((frame) => frame.status === 'processing'))).toBe(true);

    const list = await request(apis[1].url).get('/v1/transcriptions?limit=100').set(bearer(apiKey));
    expectMatchesSpec(list, 'listTranscriptions');
    expect((list.body.data as Array<{ id: string; status: string }>).map((item) => item.status)).toEqual(
      ids.map(() => 'completed'),
    );

    // Billed once: one charge per transcription in the ledger, and the balance moved by exactly their sum.
    const dataSource = provisioning.app.get(DataSource);
    const charges = await dataSource.query<Array<{ transcription_id: string; count: string }>>(
      `SELECT transcription_id, count(*) AS count FROM balance_ledger
        WHERE kind = 'charge' AND transcription_id = ANY($1) GROUP BY transcription_id`,
      [ids],
    );
    expect(charges.map((row) => [row.transcription_id, Number(row.count)]).sort()).toEqual(
      [...ids].sort().map((id) => [id, 1]),
    );
    const completedEvents = await dataSource.query<Array<{ count: string }>>(
      `SELECT count(*) AS count FROM outbox_events WHERE type = 'transcription.completed' AND data->>'id' = ANY($1)`,
      [ids],
    );
    expect(Number(completedEvents[0].count)).toBe(JOBS);

    // Run once: the two workers' own counters add up to exactly one completed attempt per job, none
    // repeated and thrown away, and both workers took part.
    const perWorker = await Promise.all(
      workers.map(async ({ metricsUrl }) => {
        const scraped = await request(metricsUrl).get('/metrics').set(bearer(METRICS_TOKEN));
        expect(scraped.status).toBe(200);
        return scraped.text;
      }),
    );
    const completedPerWorker = perWorker.map((text) =>
      sumSamples(text, 'stt_transcription_job_attempts_total', ['outcome="completed"']),
    );
    expect(completedPerWorker.reduce((a, b) => a + b, 0)).toBe(JOBS);
    for (const text of perWorker) {
      expect(sumSamples(text, 'stt_transcription_job_attempts_total', ['outcome="discarded"'])).toBe(0);
      expect(sumSamples(text, 'stt_transcription_job_attempts_total', ['outcome="retried"'])).toBe(0);
    }
    expect(completedPerWorker.every((count) => count > 0)).toBe(true);
    process.stdout.write(`jobs completed per worker: ${completedPerWorker.join(' + ')}\n`);
    // Queue depth is read from the shared Redis: both APIs report the same, drained, queue.
    for (const { url } of apis) {
      const text = (await request(url).get('/metrics').set(bearer(METRICS_TOKEN))).text;
      expect(text).toContain('stt_queue_jobs{queue="transcriptions",state="waiting"} 0');
      expect(text).toContain('stt_queue_jobs{queue="transcriptions",state="active"} 0');
    }
  });

  it('the per-key rate limit is one budget across both API processes', async () => {
    const { apiKey } = await provisioning.createWorkspace({ name: 'Multi rate limit' });
    const remaining: number[] = [];
    for (let call = 0; call < RATE_LIMIT; call += 1) {
      const response = await request(apis[call % 2].url)
        .get('/v1/account/balance')
        .set(bearer(apiKey));
      expect(response.status).toBe(200);
      remaining.push(Number(response.headers['x-ratelimit-remaining']));
    }
    // Alternating processes draw down one shared counter.
    expect(remaining).toEqual(Array.from({ length: RATE_LIMIT }, (_, call) => RATE_LIMIT - call - 1));
    for (const { url } of apis) {
      const refused = await request(url).get('/v1/account/balance').set(bearer(apiKey));
      expect(refused.status).toBe(429);
      expectMatchesSpec(refused, 'getBalance');
      expect(refused.body.type).toMatch(/\/rate-limit$/);
    }
  });
});
