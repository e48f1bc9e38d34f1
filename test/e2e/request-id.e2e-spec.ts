/**
 * Structured logs and the request id, against a real `node dist/main.js` (API and worker in
 * one process): the caller's X-Request-Id is echoed on every answer and follows the upload into its job's log
 * lines and its webhook delivery (log line and X-Request-Id header); a missing or malformed one is replaced by
 * a generated UUID; every line the process writes is one JSON object.
 */
import { execFileSync } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { expectMatchesSpec } from '../support/openapi-contract';
import { ServiceProcess, freePort } from '../support/service-process';
import { testAudio } from '../support/shared-paths';
import { baseTestEnvironment } from '../support/test-environment';

const ROOT = join(__dirname, '..', '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ORIGIN = 'https://dashboard.example';

interface LogLine {
  level: string;
  msg: string;
  requestId?: string;
  transcriptionId?: string;
  deliveryId?: string;
  [field: string]: unknown;
}

describe('Request id and JSON logs (real service process)', () => {
  let service: ServiceProcess;
  let receiver: Server;
  let receiverPort: number;
  let apiKey: string;
  const deliveries: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const http = () => request(`http://127.0.0.1:${service.env.PORT}`);

  /** Every line of the output; a line that is not one JSON object fails the test here. */
  const logLines = (): LogLine[] =>
    service.output
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => {
        try {
          return JSON.parse(line) as LogLine;
        } catch {
          throw new Error(`not a JSON log line: ${line}`);
        }
      });

  async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${service.output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  beforeAll(async () => {
    receiverPort = await freePort();
    receiver = createServer((incoming, response) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
      incoming.on('end', () => {
        deliveries.push({ headers: incoming.headers, body });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
    service = await new ServiceProcess({
      ROLE: 'all',
      PORT: String(await freePort()),
      CORS_ORIGINS: ORIGIN,
      REDIS_PREFIX: `${baseTestEnvironment().REDIS_PREFIX}-request-id`,
    }).start();
    apiKey = (
      JSON.parse(
        execFileSync(
          'node',
          [join(ROOT, 'dist', 'cli.js'), 'workspace:create', '--name', 'Request ids', '--balance', '5'],
          { env: { ...process.env, ...baseTestEnvironment() } },
        ).toString(),
      ) as { apiKey: string }
    ).apiKey;
  });
  afterAll(async () => {
    await service?.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it("follows the upload's X-Request-Id into its job's log lines and its webhook delivery", async () => {
    const auth = { Authorization: `Bearer ${apiKey}` };
    const hook = await http()
      .post('/v1/webhooks')
      .set(auth)
      .send({ url: `http://127.0.0.1:${receiverPort}/hook`, events: ['transcription.completed'] });
    expect(hook.status).toBe(201);

    const upload = await http()
      .post('/v1/transcriptions')
      .set({ ...auth, 'X-Request-Id': 'abc-123', Origin: ORIGIN })
      .attach('file', testAudio('pocketsphinx/goforward.wav'));
    expectMatchesSpec(upload, 'createTranscription');
    expect(upload.status).toBe(202);
    expect(upload.headers['x-request-id']).toBe('abc-123');
    // A browser app may read it (CORS).
    expect(upload.headers['access-control-expose-headers']).toContain('X-Request-Id');
    const transcriptionId = upload.body.data.id as string;

    const delivery = await until('the webhook delivery', () =>
      deliveries.find((d) => d.body.includes(transcriptionId)),
    );
    expect(delivery.headers['x-request-id']).toBe('abc-123');
    const deliveryLine = await until('the delivery log line', () =>
      logLines().find((line) => line.deliveryId !== undefined && /HTTP 200/.test(line.msg)),
    );

    const lines = logLines();
    const ours = lines.filter((line) => line.requestId === 'abc-123');
    // The upload's request line: method, path, status, duration, workspace.
    expect(ours).toContainEqual(
      expect.objectContaining({
        msg: 'request completed',
        method: 'POST',
        path: '/v1/transcriptions',
        status: 202,
        durationMs: expect.any(Number),
        workspaceId: expect.any(String),
      }),
    );
    // The job's lines (in the worker's processor and the job service) carry it, with the transcription id.
    const jobLines = ours.filter((line) => line.transcriptionId === transcriptionId).map((line) => line.msg);
    expect(jobLines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/attempt 1 started/),
        expect.stringMatching(/attempt 1 ended: done/),
      ]),
    );
    expect(deliveryLine.requestId).toBe('abc-123');
    // Nothing secret in any line.
    expect(service.output).not.toContain(apiKey);
  });

  it('generates a UUID when X-Request-Id is absent or malformed, on every kind of answer', async () => {
    const plain = await http().get('/v1/health');
    expect(plain.status).toBe(200);
    expect(plain.headers['x-request-id']).toMatch(UUID);
    const other = await http().get('/v1/health');
    expect(other.headers['x-request-id']).not.toBe(plain.headers['x-request-id']);

    for (const malformed of ['has spaces', 'x'.repeat(129), '<script>']) {
      const response = await http().get('/v1/health').set('X-Request-Id', malformed);
      expect(response.headers['x-request-id']).toMatch(UUID);
    }
  });

  it('echoes it on a 404 and on a 422 problem', async () => {
    const missing = await http().get('/v1/no-such-route').set('X-Request-Id', 'abc-404');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
    expect(missing.headers['x-request-id']).toBe('abc-404');

    const invalid = await http()
      .post('/v1/webhooks')
      .set({ Authorization: `Bearer ${apiKey}`, 'X-Request-Id': 'abc-422' })
      .send({ url: 'not a url', events: ['transcription.completed'] });
    expectMatchesSpec(invalid, 'createWebhook');
    expect(invalid.status).toBe(422);
    expect(invalid.headers['x-request-id']).toBe('abc-422');
    await until('the 422 request line', () =>
      logLines().find((line) => line.requestId === 'abc-422' && line.status === 422),
    );
  });
});
