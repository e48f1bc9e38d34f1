import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import request from 'supertest';
import {
  createWorkspace,
  eventually,
  queueClips,
  rawUpload,
  useChaosFixture,
  type RawResponse,
} from '../support/chaos-harness';
import { expectMatchesSpec } from '../support/openapi-contract';
import { SentinelSet } from '../support/redis-servers';
import { testAudio } from '../support/shared-paths';

const PASSWORD = 'failover sign-in password';
/** What a client waits at most for one answer; no answer within it counts as a failure. */
const CLIENT_TIMEOUT_MS = 15_000;
/** Jobs running or waiting when the master dies: long enough to be mid-recognition then. */
const JOB_CLIPS = ['picovoice-falcon/test.wav', 'lhotse/LJ002-0020.wav', 'pocketsphinx/goforward.wav'];
const SHORT_CLIP = readFileSync(testAudio('pocketsphinx/goforward.wav'));

/**
 * The kinds of request the clients keep sending, each needing Redis in its own way: a read is rate limited
 * (which fails open), a sign-in is throttled (which does not), an event stream subscribes to pub/sub, an upload
 * hands its job to the queue (or leaves it to the reconciler).
 */
const KINDS = ['read', 'sign-in', 'events', 'upload'] as const;
type Kind = (typeof KINDS)[number];
const OPERATION: Record<Kind, string> = {
  read: 'listTranscriptions',
  'sign-in': 'login',
  events: 'streamTranscriptionEvents',
  upload: 'createTranscription',
};

interface Answer {
  kind: Kind;
  /** When the answer came, in ms since the master was killed (negative: before). */
  at: number;
  /** How long the client waited for it, in ms. */
  took: number;
  status: number;
  response: RawResponse | null;
  error?: string;
}

/** GET …/events of a finished job: 200 with the terminal frame, read to the end the server gives it. */
function eventStream(url: string, apiKey: string, id: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = httpGet(
      `${url}/v1/transcriptions/${id}/events`,
      {
        headers: { Authorization: `Bearer ${apiKey}`, Accept: 'text/event-stream' },
        timeout: CLIENT_TIMEOUT_MS,
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => {
          let body: unknown = null;
          try {
            body = JSON.parse(text);
          } catch {
            body = null;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, body });
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no end within ${CLIENT_TIMEOUT_MS} ms`)));
    outgoing.on('error', reject);
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Per kind: how many answers came after the fault, and the failed ones (status, first and last time). */
/** An answer the fault touched: not a success, or a success the client waited for more than a second. */
const affected = (answer: Answer) => answer.status >= 300 || answer.status === 0 || answer.took > 1_000;

/**
 * Per kind: the answers after the fault, the failed ones (status, when), the slowest; then the window in which
 * clients saw the fault: from the sending of the first affected request to the last affected answer.
 */
function describeAnswers(answers: Answer[]): string {
  const after = answers.filter((answer) => answer.at > 0);
  const lines = KINDS.map((kind) => {
    const mine = after.filter((answer) => answer.kind === kind);
    const failed = mine.filter((answer) => answer.status >= 300 || answer.status === 0);
    const statuses = [...new Set(failed.map((answer) => answer.status))].join('/');
    const slowest = Math.max(0, ...mine.map((answer) => answer.took));
    const failures =
      failed.length === 0
        ? 'none failed'
        : `${failed.length} answered ${statuses} (at ${failed.map((answer) => answer.at).join(', ')} ms)`;
    return `  ${kind}: ${mine.length} answers, ${failures}; slowest ${slowest} ms`;
  });
  const touched = after.filter(affected);
  const window =
    touched.length === 0
      ? 'no client saw it'
      : `clients saw it from ${Math.min(...touched.map((answer) => answer.at - answer.took))} to ` +
        `${Math.max(...touched.map((answer) => answer.at))} ms after the fault`;
  return [...lines, `  window: ${window}`].join('\n');
}

type Fault = 'kill' | 'freeze';

/**
 * Redis with automatic failover (Debian's redis-sentinel): a master, a replica and three sentinels on loopback,
 * one API and two worker processes configured with REDIS_SENTINELS. While jobs run and clients keep calling, the
 * master dies (SIGKILL) or hangs (SIGSTOP: its connections stay open, nothing answers, as when its host freezes
 * or the network cuts it off); the sentinels promote the replica. Every client answer is a success or a 503 with
 * Retry-After, never another 5xx nor no answer; every job ends, each charged once; no process is restarted; the
 * outage window the clients saw is printed.
 */
describe('Chaos: the Redis master fails over to its replica (Sentinel) while jobs run', () => {
  const chaos = useChaosFixture('failover', { startReceiver: false });
  let redis: SentinelSet | null = null;

  afterEach(async () => {
    await chaos.processes.stopAll();
    await redis?.stop();
    redis = null;
  });

  it.each<[Fault, string]>([
    ['kill', 'killed (SIGKILL)'],
    ['freeze', 'hung (SIGSTOP: connections open, no answer)'],
  ])(
    'master %s — %s: 503 with Retry-After during the switch, never 500; every job ends, charged once',
    async (fault) => {
      const sentinels = await SentinelSet.start({
        masterName: 'stt-failover',
        password: `data-${randomUUID()}`,
        sentinelPassword: `sentinel-${randomUUID()}`,
        downAfterMs: 1_000,
      });
      redis = sentinels;
      const env = { ...chaos.env, ...sentinels.env(), WORKER_CONCURRENCY: '1' };
      const api = await chaos.processes.api(env);
      const apiUrl = api.url;
      const services = [api.process, await chaos.processes.worker(env), await chaos.processes.worker(env)];
      const email = `failover-${randomUUID()}@example.com`;
      const workspace = createWorkspace(`Chaos failover ${fault}`, 5, 0, { email, password: PASSWORD });

      const finished = await queueClips(apiUrl, workspace.apiKey, ['pocketsphinx/goforward.wav']);
      await eventually(
        'the first job completed (the clients read its event stream)',
        async () => (await chaos.statusCounts(finished)).completed === 1,
        60_000,
      );
      const jobs = await queueClips(apiUrl, workspace.apiKey, [...JOB_CLIPS, ...JOB_CLIPS]);
      await eventually(
        'jobs being processed by the workers',
        async () => ((await chaos.statusCounts(jobs)).processing ?? 0) >= 1,
        30_000,
        100,
      );

      const answers: Answer[] = [];
      const uploaded: string[] = [];
      let faultAt = Number.POSITIVE_INFINITY;
      let running = true;
      const authorization = { Authorization: `Bearer ${workspace.apiKey}` };
      const calls: Record<Kind, () => Promise<RawResponse>> = {
        read: async () => {
          const response = await request(apiUrl)
            .get('/v1/transcriptions?limit=5')
            .set(authorization)
            .timeout(CLIENT_TIMEOUT_MS);
          return {
            status: response.status,
            headers: response.headers,
            text: response.text,
            body: response.body,
          };
        },
        'sign-in': async () => {
          const response = await request(apiUrl)
            .post('/v1/auth/login')
            .send({ email, password: PASSWORD })
            .timeout(CLIENT_TIMEOUT_MS);
          return {
            status: response.status,
            headers: response.headers,
            text: response.text,
            body: response.body,
          };
        },
        events: () => eventStream(apiUrl, workspace.apiKey, finished[0]),
        upload: async () => {
          const response = await rawUpload(
            apiUrl,
            workspace.apiKey,
            'goforward.wav',
            SHORT_CLIP,
            CLIENT_TIMEOUT_MS,
          );
          if (response.status === 202) uploaded.push((response.body as { data: { id: string } }).data.id);
          return response;
        },
      };
      /** One client per kind, one request at a time; uploads less often (each is a job for the workers). */
      const client = async (kind: Kind, gapMs: number): Promise<void> => {
        while (running) {
          let answer: Answer;
          const sent = Date.now();
          try {
            const response = await calls[kind]();
            answer = {
              kind,
              at: Date.now() - faultAt,
              took: Date.now() - sent,
              status: response.status,
              response,
            };
          } catch (error) {
            answer = {
              kind,
              at: Date.now() - faultAt,
              took: Date.now() - sent,
              status: 0,
              response: null,
              error: (error as Error).message,
            };
          }
          answers.push(answer);
          await pause(gapMs);
        }
      };
      const clients = Promise.all([
        client('read', 50),
        client('sign-in', 100),
        client('events', 50),
        client('upload', 1_000),
      ]);

      const masterPort = sentinels.master.port;
      try {
        await eventually(
          'every kind answered before the fault',
          async () => new Set(answers.map((answer) => answer.kind)).size === 4,
          30_000,
          50,
        );
        faultAt = Date.now();
        if (fault === 'kill') await sentinels.master.kill();
        else sentinels.master.freeze();
        await eventually(
          'the sentinels promoting the replica',
          async () => (await sentinels.currentMasterPort()) === sentinels.replica.port,
          30_000,
          100,
        );
        const switchedAfterMs = Date.now() - faultAt;
        // Clients go on until every kind has been served again a few times after the switch.
        await eventually(
          'every kind of request served again after the failover',
          async () =>
            KINDS.every(
              (kind) =>
                answers.filter((a) => a.kind === kind && a.at > switchedAfterMs && a.status < 300).length >=
                3,
            ),
          60_000,
          100,
        ).catch((error: Error) => {
          throw new Error(`${error.message}\n${describeAnswers(answers)}`);
        });
        running = false;
        await clients;

        const failures = answers.filter(
          (answer) => answer.at > 0 && (answer.status >= 300 || answer.status === 0),
        );
        console.log(
          `Redis failover (master ${fault}): master :${masterPort}; the sentinels named :${sentinels.replica.port} ` +
            `after ${switchedAfterMs} ms.\n` +
            describeAnswers(answers),
        );

        // Never a 500, nor a request left without an answer: what is not a success is a 503 with Retry-After.
        expect(
          failures
            .filter((answer) => answer.status !== 503)
            .map((answer) => {
              // The API's own log line for the error id says what it was.
              const errorId = (answer.response?.body as { errorId?: string } | null)?.errorId;
              const logged = errorId
                ? api.process.output.split('\n').find((line) => line.includes(errorId))
                : undefined;
              return `${answer.kind} ${answer.status} at ${answer.at} ms: ${answer.error ?? logged ?? answer.response?.text}`;
            }),
        ).toEqual([]);
        for (const answer of failures) {
          const response = answer.response as RawResponse;
          expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
          expect((response.body as { type: string }).type).toMatch(/\/service-unavailable$/);
          expectMatchesSpec(response, OPERATION[answer.kind]);
        }
      } finally {
        running = false;
        await clients;
      }

      // Every job ends, the ones running at the fault and the ones uploaded during the switch, each charged once.
      const all = [...finished, ...jobs, ...uploaded];
      await eventually(
        'every job completed after the failover',
        async () => (await chaos.statusCounts(all)).completed === all.length,
        120_000,
        500,
      ).catch(async (error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(await chaos.statusCounts(all))}`);
      });
      const charges = await chaos.charges(workspace.workspaceId);
      expect(charges.map((charge) => charge.transcription_id).sort()).toEqual([...all].sort());
      for (const charge of charges) expect(Number(charge.amount)).toBe(-Number(charge.cost));

      // Nothing was restarted by hand: the same three processes, still running, on the new master.
      expect(services.map((service) => service.running)).toEqual([true, true, true]);
    },
    300_000,
  );
});
