import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import {
  createWorkspace,
  eventually,
  queueClips,
  useChaosFixture,
  type RawResponse,
} from '../support/chaos-harness';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';

/** 18.6 s of speech: long enough to be mid-recognition when the worker gets SIGTERM. */
const LONG_CLIP = 'picovoice-falcon/test.wav';
const SHORT_CLIP = 'pocketsphinx/goforward.wav';
const OPENING_BALANCE_MICRO = 1_000_000;

/** An upload whose body is sent in two halves: the first half now, the rest when `finish` is called. */
function startSlowUpload(url: string, apiKey: string, clip: string) {
  const boundary = `shutdown${randomUUID()}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.wav"\r\n` +
        'Content-Type: audio/wav\r\n\r\n',
    ),
    readFileSync(testAudio(clip)),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const half = Math.floor(body.length / 2);
  let serverHasIt: () => void = () => undefined;
  // 100 Continue: the server has read the request head, so the request is in flight there.
  const inFlight = new Promise<void>((resolve) => (serverHasIt = resolve));
  const outgoing = httpRequest(`${url}/v1/transcriptions`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${apiKey}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(body.length),
      Expect: '100-continue',
    },
  });
  outgoing.on('continue', () => {
    outgoing.write(body.subarray(0, half));
    serverHasIt();
  });
  const response = new Promise<RawResponse>((resolve, reject) => {
    outgoing.on('error', reject);
    outgoing.on('response', (incoming: IncomingMessage) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          text,
          body: JSON.parse(text),
        });
      });
    });
  });
  outgoing.flushHeaders();
  return { inFlight, response, finish: () => outgoing.end(body.subarray(half)) };
}

/** GET …/events; resolves with everything the stream carried once the server ends it. */
function openEventStream(url: string, apiKey: string, id: string) {
  let text = '';
  const ended = new Promise<string>((resolve, reject) => {
    const outgoing = httpRequest(`${url}/v1/transcriptions/${id}/events`, {
      headers: { Authorization: `Bearer ${apiKey}`, Accept: 'text/event-stream' },
    });
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (text += chunk));
      incoming.on('end', () => resolve(text));
      incoming.on('error', reject);
    });
    outgoing.end();
  });
  return { ended, received: () => text };
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * SIGTERM, as an orchestrator sends it, to real `node dist/main.js` processes: an API process lets the upload
 * in flight finish, ends event streams with a final frame and refuses new connections; a worker finishes its
 * job within SHUTDOWN_GRACE_MS or hands it back for another worker, and the job is charged exactly once.
 * Every process exits with code 0.
 */
describe('Chaos: graceful shutdown on SIGTERM', () => {
  const chaos = useChaosFixture('graceful-shutdown', { startReceiver: false });
  const { env, processes } = chaos;

  const status = async (id: string): Promise<string> =>
    (await chaos.transcriptionsOf((await owner(id)) ?? '')).find((row) => row.id === id)?.status ?? 'gone';
  const owner = async (id: string): Promise<string | undefined> =>
    (
      await chaos.database.query<{ workspace_id: string }>(
        'SELECT workspace_id FROM transcriptions WHERE id = $1',
        [id],
      )
    ).rows[0]?.workspace_id;
  const freeRemaining = async (workspaceId: string): Promise<number> =>
    (
      await chaos.database.query<{ free: number }>(
        'SELECT free_transcriptions_remaining AS free FROM workspaces WHERE id = $1',
        [workspaceId],
      )
    ).rows[0].free;

  it('API: the upload in flight gets its 202, the event stream a shutdown frame, new connections are refused, exit 0', async () => {
    const workspace = createWorkspace('Shutdown API', 1);
    const api = await processes.api(env); // no worker: the job stays queued and its stream open
    const [id] = await queueClips(api.url, workspace.apiKey, [SHORT_CLIP]);
    const stream = openEventStream(api.url, workspace.apiKey, id);
    await eventually('the first frame', async () => stream.received().includes('data:'), 10_000, 50);
    const upload = startSlowUpload(api.url, workspace.apiKey, SHORT_CLIP);
    await upload.inFlight;

    const exited = api.process.terminate('SIGTERM');
    const frames = await stream.ended;
    expect(frames).toMatch(/event: shutdown\nretry: \d+\ndata: \{"reason":"server shutting down"\}\n\n$/);
    const port = Number(new URL(api.url).port);
    await eventually('new connections refused', () => connectionRefused(port), 10_000, 50);

    upload.finish();
    const answer = await upload.response;
    expect(answer.status).toBe(202);
    expectMatchesSpec(answer, 'createTranscription');
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('worker past its deadline: the job is handed back, a second worker completes it, charged once', async () => {
    const workspace = createWorkspace('Shutdown hand-back', OPENING_BALANCE_MICRO / 1_000_000);
    const api = await processes.api(env);
    const first = await processes.worker({ ...env, SHUTDOWN_GRACE_MS: '200' });
    const [id] = await queueClips(api.url, workspace.apiKey, [LONG_CLIP]);
    await eventually('processing', async () => (await status(id)) === 'processing', 30_000, 50);

    expect(await first.terminate('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(first.output).toMatch(/handing back 1 running job/);
    expect(await status(id)).toBe('queued');
    expect(await chaos.charges(workspace.workspaceId)).toEqual([]);

    const second = await processes.worker(env);
    await eventually(
      'completed by the second worker',
      async () => (await status(id)) === 'completed',
      120_000,
    );
    const charges = await chaos.charges(workspace.workspaceId);
    expect(charges).toHaveLength(1);
    expect(charges[0].transcription_id).toBe(id);
    expect(Number(charges[0].amount)).toBe(-Number(charges[0].cost));
    const {
      rows: [account],
    } = await chaos.database.query<{ balance: string }>(
      'SELECT balance_micro AS balance FROM workspaces WHERE id = $1',
      [workspace.workspaceId],
    );
    expect(Number(account.balance)).toBe(OPENING_BALANCE_MICRO - Number(charges[0].cost));
    expect(await second.terminate('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 180_000);

  it('worker within its deadline: the same worker finishes the job (one free transcription used), then exits 0', async () => {
    const workspace = createWorkspace('Shutdown finish', 0, 1);
    const api = await processes.api(env);
    const worker = await processes.worker({ ...env, SHUTDOWN_GRACE_MS: '120000' });
    const [id] = await queueClips(api.url, workspace.apiKey, [SHORT_CLIP]);
    await eventually('processing', async () => (await status(id)) === 'processing', 30_000, 50);

    expect(await worker.terminate('SIGTERM', 120_000)).toEqual({ code: 0, signal: null });
    expect(worker.output).not.toMatch(/handing back/);
    expect(await status(id)).toBe('completed');
    expect(await freeRemaining(workspace.workspaceId)).toBe(0);
    expect(await chaos.charges(workspace.workspaceId)).toEqual([]);
  }, 180_000);
});
