/**
 * SSE fan-out: 500 concurrent GET /v1/transcriptions/{id}/events streams on running jobs of a throwaway service
 * (one ROLE=api process, one ROLE=worker process), API memory and delivery latency.
 *
 *   npm run bench:sse
 *   node dist-bench/bench/sse-fanout.js [--jobs 1] [--streams 500] [--minutes 3]
 *
 * The jobs (real English speech, clips concatenated to --minutes, MP3) are uploaded while no worker runs, so they
 * wait queued; all streams are opened and get their first frame; then the worker starts and the jobs run to the end.
 * The bench itself subscribes to the service's Redis channel of each job (`<REDIS_PREFIX>:transcription-state:<id>`)
 * and stamps the moment each state change is published; every stream stamps the arrival of each frame.
 * Delivery latency = arrival on a stream − publication on Redis (same clock, this process), over all frames and
 * streams (p50/p99/max); spread = arrival − first arrival of the same frame on any stream.
 * API VmRSS (/proc) before opening the streams, with all streams open, at the peak, and after they closed.
 */
import * as http from 'node:http';
import * as fs from 'node:fs';
import Redis from 'ioredis';
import { benchTempDir, longSpeechFile } from './lib/bench-audio';
import {
  fixed,
  machineInfo,
  markdownTable,
  numberArgument,
  percentile,
  processMemory,
  publish,
  quietWaitMs,
  runMain,
  waitForQuietMachine,
} from './lib/measure';
import { REDIS_URL, sleep, withSandbox } from './lib/sandbox';

interface StreamRecord {
  jobId: string;
  /** frame key (status:progress) → arrival time in ms (performance.now()). */
  arrivals: Map<string, number>;
  ended: boolean;
  error?: string;
  status?: number;
}

const frameKey = (frame: { status?: string; progress?: number }): string =>
  `${frame.status}:${frame.progress}`;

function openStream(baseUrl: string, apiKey: string, jobId: string, agent: http.Agent): StreamRecord {
  const record: StreamRecord = { jobId, arrivals: new Map(), ended: false };
  const request = http.get(
    `${baseUrl}/v1/transcriptions/${jobId}/events`,
    { agent, headers: { Authorization: `Bearer ${apiKey}`, Accept: 'text/event-stream' } },
    (response) => {
      record.status = response.statusCode;
      response.setEncoding('utf8');
      let buffer = '';
      response.on('data', (text: string) => {
        const now = performance.now();
        buffer += text;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const line of event.split('\n')) {
            if (!line.startsWith('data:')) continue;
            const key = frameKey(JSON.parse(line.slice(5)) as { status?: string; progress?: number });
            if (!record.arrivals.has(key)) record.arrivals.set(key, now);
          }
        }
      });
      response.on('end', () => (record.ended = true));
      response.on('error', (error) => (record.error = error.message));
    },
  );
  request.on('error', (error) => {
    record.error = error.message;
    record.ended = true;
  });
  return record;
}

async function upload(baseUrl: string, apiKey: string, file: string, name: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(file)]), name);
  const response = await fetch(`${baseUrl}/v1/transcriptions`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  if (response.status !== 202)
    throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

async function main(): Promise<void> {
  const jobs = numberArgument('--jobs', 1);
  const streamsTotal = numberArgument('--streams', 500);
  const minutes = numberArgument('--minutes', 3);
  const machine = machineInfo();
  const directory = benchTempDir('sse');
  try {
    const file = longSpeechFile(directory, minutes);
    const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
    const figures = await withSandbox({ LOG_LEVEL: 'warn' }, async (sandbox) => {
      const api = await sandbox.start('api');
      const baseUrl = api.url as string;
      const ids: string[] = [];
      for (let index = 0; index < jobs; index++)
        ids.push(await upload(baseUrl, sandbox.apiKey, file, `sse-${index}.mp3`));

      // Publication times of every state change, seen by our own Redis subscriber.
      const published = new Map<string, number>();
      const subscriber = new Redis(REDIS_URL);
      subscriber.on('message', (channel: string, message: string) => {
        const now = performance.now();
        const key = `${channel.split(':').pop()}|${frameKey(JSON.parse(message) as { status?: string; progress?: number })}`;
        if (!published.has(key)) published.set(key, now);
      });
      await subscriber.subscribe(...ids.map((id) => `${sandbox.prefix}:transcription-state:${id}`));

      await sleep(1000);
      const before = processMemory(api.pid);
      const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
      const streams = Array.from({ length: streamsTotal }, (_, index) =>
        openStream(baseUrl, sandbox.apiKey, ids[index % ids.length], agent),
      );
      const openDeadline = Date.now() + 60_000;
      while (
        streams.some((stream) => stream.arrivals.size === 0 && !stream.ended) &&
        Date.now() < openDeadline
      )
        await sleep(100);
      const opened = streams.filter((stream) => stream.arrivals.size > 0).length;
      await sleep(1000);
      const withStreams = processMemory(api.pid);
      let peakRss = withStreams?.rssMb ?? 0;
      const sampler = setInterval(() => {
        peakRss = Math.max(peakRss, processMemory(api.pid)?.rssMb ?? 0);
      }, 250);

      const worker = await sandbox.start('worker');
      const started = Date.now();
      const deadline = started + 60 * 60 * 1000;
      while (streams.some((stream) => !stream.ended) && Date.now() < deadline) await sleep(250);
      const runSeconds = (Date.now() - started) / 1000;
      clearInterval(sampler);
      await worker.stop();
      await sleep(1000);
      const after = processMemory(api.pid);
      subscriber.disconnect();
      agent.destroy();

      const latencies: number[] = [];
      const spreads: number[] = [];
      const firstArrival = new Map<string, number>();
      for (const stream of streams) {
        for (const [frame, at] of stream.arrivals) {
          const key = `${stream.jobId}|${frame}`;
          firstArrival.set(key, Math.min(firstArrival.get(key) ?? Infinity, at));
        }
      }
      let missing = 0;
      let framesCompared = 0;
      for (const [key, publishedAt] of published) {
        const [jobId] = key.split('|');
        const frame = key.slice(jobId.length + 1);
        for (const stream of streams) {
          if (stream.jobId !== jobId) continue;
          const at = stream.arrivals.get(frame);
          // Progress frames superseded before a stream's first read are legitimately skipped; terminal ones are not.
          if (at === undefined) {
            if (frame.startsWith('completed') || frame.startsWith('failed')) missing++;
            continue;
          }
          framesCompared++;
          latencies.push(at - publishedAt);
          spreads.push(at - (firstArrival.get(key) ?? at));
        }
      }
      const [{ completed }] = await sandbox.query<{ completed: string }>(
        `SELECT count(*) FILTER (WHERE status = 'completed') AS completed FROM transcriptions WHERE id = ANY($1)`,
        [ids],
      );
      return {
        opened,
        errors: streams.filter((stream) => stream.error || (stream.status ?? 200) !== 200).length,
        endedAll: streams.every((stream) => stream.ended),
        before,
        withStreams,
        peakRss,
        after,
        publishedFrames: published.size,
        framesCompared,
        missingTerminal: missing,
        latency: {
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          max: Math.max(...latencies),
        },
        spread: { p50: percentile(spreads, 50), p99: percentile(spreads, 99), max: Math.max(...spreads) },
        runSeconds,
        completed: Number(completed),
      };
    });
    const table = markdownTable(
      ['measure', 'value'],
      [
        [
          'streams opened / asked',
          `${figures.opened} / ${streamsTotal} on ${jobs} job(s) of ${minutes} min audio`,
        ],
        ['stream errors', String(figures.errors)],
        ['jobs completed', `${figures.completed} / ${jobs} (run ${fixed(figures.runSeconds, 0)} s)`],
        ['state changes published (Redis)', String(figures.publishedFrames)],
        ['frame deliveries measured', String(figures.framesCompared)],
        ['terminal frames missing on a stream', String(figures.missingTerminal)],
        [
          'delivery latency, Redis publish → stream (ms) p50 / p99 / max',
          `${fixed(figures.latency.p50, 1)} / ${fixed(figures.latency.p99, 1)} / ${fixed(figures.latency.max, 1)}`,
        ],
        [
          'arrival spread of one frame across streams (ms) p50 / p99 / max',
          `${fixed(figures.spread.p50, 1)} / ${fixed(figures.spread.p99, 1)} / ${fixed(figures.spread.max, 1)}`,
        ],
        [
          'API VmRSS before / 500 open / peak / after close (MB)',
          `${fixed(figures.before?.rssMb, 0)} / ${fixed(figures.withStreams?.rssMb, 0)} / ${fixed(figures.peakRss, 0)} / ${fixed(figures.after?.rssMb, 0)}`,
        ],
      ],
    );
    publish(
      'sse-fanout',
      `${table}\n\nMachine: ${machine.cpus} × ${machine.cpuModel}; load average before ${loadAtStart}. ` +
        'Client, Redis and service on the same machine (loopback).',
      { ...figures, loadAtStart, jobs, streamsTotal, minutes },
    );
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
