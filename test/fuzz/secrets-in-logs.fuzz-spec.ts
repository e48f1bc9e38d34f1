/**
 * API keys and webhook secrets never reach the logs: a real `node dist/main.js` (API and worker, most verbose
 * log level) is driven through key use, authentication failures with near-miss keys and tokens, webhook
 * registration, a failed job and its signed delivery to a local receiver; everything it wrote to stdout and
 * stderr (JSON lines) must hold no full API key (`svc_live_…`), no webhook secret, no cookie, no query string
 * and not the JWT secret.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { ServiceProcess, freePort } from '../support/service-process';
import { baseTestEnvironment } from '../support/test-environment';
import { generatedAudio } from '../support/transcriptions';

const ROOT = join(__dirname, '..', '..');

describe('Secrets never logged (real service process)', () => {
  let service: ServiceProcess;
  let receiver: Server;
  let receiverPort: number;
  const deliveries: string[] = [];
  let port: number;

  beforeAll(async () => {
    receiverPort = await freePort();
    receiver = createServer((incoming, response) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
      incoming.on('end', () => {
        deliveries.push(body);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
    port = await freePort();
    service = await new ServiceProcess({
      ROLE: 'all',
      PORT: String(port),
      LOG_LEVEL: 'verbose',
      REDIS_PREFIX: `${baseTestEnvironment().REDIS_PREFIX}-secrets-log`,
    }).start();
  });
  afterAll(async () => {
    await service.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('keys, tokens and webhook secrets used, refused and delivered never appear in the output', async () => {
    const created = JSON.parse(
      execFileSync(
        'node',
        [join(ROOT, 'dist', 'cli.js'), 'workspace:create', '--name', 'Log check', '--balance', '5'],
        {
          env: { ...process.env, ...baseTestEnvironment() },
        },
      ).toString(),
    ) as { apiKey: string };
    const apiKey = created.apiKey;
    const http = () => request(`http://127.0.0.1:${port}`);
    const auth = { Authorization: `Bearer ${apiKey}` };

    expect((await http().get('/v1/account/profile').set(auth)).status).toBe(200);
    expect((await http().get('/v1/account/balance').set({ 'X-API-KEY': apiKey })).status).toBe(200);
    // Near misses: the logs must not echo what was tried either.
    const nearMiss = `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
    expect(
      (
        await http()
          .get('/v1/account/balance')
          .set({ Authorization: `Bearer ${nearMiss}` })
      ).status,
    ).toBe(401);
    expect((await http().get('/v1/account/balance').set({ 'X-API-KEY': nearMiss })).status).toBe(401);
    // Cookies (the dashboard's session cookies) and query strings are never logged either.
    const cookieSecret = `cookie-${apiKey.slice(-20)}`;
    await http()
      .get(`/v1/account/balance?api_key=${apiKey}`)
      .set({ ...auth, Cookie: `session=${cookieSecret}`, 'X-Request-Id': 'secrets-check' });
    expect(
      (
        await http()
          .get('/v1/account/balance')
          .set({ Authorization: `Basic ${apiKey}` })
      ).status,
    ).toBe(401);
    expect(
      (
        await http()
          .get('/v1/account/balance')
          .set({ Authorization: `Bearer ${apiKey}.x.y` })
      ).status,
    ).toBe(401);

    const webhook = await http()
      .post('/v1/webhooks')
      .set(auth)
      .send({
        url: `http://127.0.0.1:${receiverPort}/hook`,
        events: ['transcription.failed', 'transcription.completed'],
      });
    expect(webhook.status).toBe(201);
    const secret = webhook.body.data.secret as string;

    // Silence fails with NO_SPOKEN_AUDIO: a job runs, fails, and its delivery is signed with the secret.
    const silence = generatedAudio('silence.wav', [
      '-f',
      'lavfi',
      '-i',
      'anullsrc=r=16000:cl=mono',
      '-t',
      '2',
    ]);
    const upload = await http().post('/v1/transcriptions').set(auth).attach('file', silence);
    expect(upload.status).toBe(202);
    const deadline = Date.now() + 60_000;
    while (deliveries.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 250));
    expect(deliveries.length).toBeGreaterThan(0);

    const output = service.output;
    expect(output.length).toBeGreaterThan(0);
    // The structured format: every line one JSON object, and the request above was logged (so the checks
    // below look at real request lines).
    const lines = output
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { requestId?: string; path?: string });
    expect(lines.find((line) => line.requestId === 'secrets-check')).toMatchObject({
      path: '/v1/account/balance',
    });
    for (const [what, value] of [
      ['API key', apiKey],
      ['near-miss API key', nearMiss],
      ['webhook secret', secret],
      ['JWT secret', baseTestEnvironment().JWT_SECRET],
      ['cookie', cookieSecret],
    ] as const) {
      expect({ what, logged: output.includes(value) }).toEqual({ what, logged: false });
    }
    // Not even the random part of a key in another shape.
    expect(output).not.toMatch(/svc_live_[0-9A-Za-z]{40}/);
    expect(output).not.toContain(secret.slice(-24));
  });
});
