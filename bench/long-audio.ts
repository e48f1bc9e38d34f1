/**
 * Long audio: a 1-hour and a 3-hour file of real English speech (the shared English clips concatenated
 * and looped with ffmpeg, MP3 64 kb/s, written to the temp folder and deleted afterwards) transcribed through a
 * throwaway service (one ROLE=api process, one ROLE=worker process, WORKER_CONCURRENCY=1).
 *
 *   npm run bench:long-audio
 *   node dist-bench/bench/long-audio.js [--minutes 60,180]
 *
 * Per file: end-to-end wall time (upload → terminal status seen by the client), the worker's processing time
 * (started_at → completed_at of the record), the real-time factor (processing / audio duration), and the peak
 * memory of the worker's descendants (the engine child and whatever it runs, e.g. ffmpeg): /proc VmRSS of every
 * descendant sampled every 250 ms (peak of the sum) and the largest VmHWM seen for one process.
 * Long-audio targets (default --minutes 60,180): peak engine RSS of the 3-hour file < 600 MB and within 20 % of the
 * 1-hour file's; processing time of 3 h ≤ 3.15 × that of 1 h.
 */
import * as fs from 'node:fs';
import { benchTempDir, longSpeechFile, probeSeconds } from './lib/bench-audio';
import {
  argument,
  commandLine,
  descendants,
  fixed,
  loadAverage,
  machineInfo,
  markdownTable,
  processMemory,
  processPssMb,
  publish,
  quietWaitMs,
  runMain,
  waitForQuietMachine,
} from './lib/measure';
import { withSandbox } from './lib/sandbox';
import { transcribeThroughService } from './lib/service-client';

interface MemorySampler {
  stop(): {
    peakSumMb: number;
    peakHwmMb: number;
    peakProcess: string;
    samples: number;
    /** API + worker + the worker's descendants, summed: the peak, and each process's RSS at that moment. */
    peakServiceMb: number;
    peakServiceParts: string;
    /** The same processes' proportional set sizes summed (shared pages counted once): the peak and its parts. */
    peakServicePssMb: number;
    peakServicePssParts: string;
  };
}

/** A short label of a process: its script's or binary's name (main.js api/worker, engine-child.js, ffmpeg). */
function processLabel(pid: number, roles: ReadonlyMap<number, string>): string {
  const role = roles.get(pid);
  if (role) return role;
  return commandLine(pid)
    .split(' ')
    .slice(0, 2)
    .map((part) => part.split('/').pop() ?? part)
    .join(' ');
}

function sampleDescendants(rootPid: number, apiPid: number, intervalMs = 250): MemorySampler {
  let peakSumMb = 0;
  let peakHwmMb = 0;
  let peakProcess = '';
  let peakServiceMb = 0;
  let peakServiceParts = '';
  let peakServicePssMb = 0;
  let peakServicePssParts = '';
  let samples = 0;
  const roles = new Map([
    [apiPid, 'API (main.js, ROLE=api)'],
    [rootPid, 'worker (main.js, ROLE=worker)'],
  ]);
  const describe = (parts: Array<[string, number]>): string =>
    parts.map(([label, mb]) => `${label} ${mb.toFixed(0)}`).join(' + ');
  const tick = (): void => {
    // One scan of /proc per tick: the worker's descendants, read for RSS and PSS alike.
    const children = new Set(descendants(rootPid));
    let sum = 0;
    let service = 0;
    const parts: Array<[string, number]> = [];
    const pssParts: Array<[string, number]> = [];
    for (const pid of [apiPid, rootPid, ...children]) {
      const memory = processMemory(pid);
      if (!memory) continue;
      const label = processLabel(pid, roles);
      service += memory.rssMb;
      parts.push([label, memory.rssMb]);
      const pss = processPssMb(pid);
      if (pss !== null) pssParts.push([label, pss]);
      if (!children.has(pid)) continue;
      sum += memory.rssMb;
      if (memory.hwmMb > peakHwmMb) {
        peakHwmMb = memory.hwmMb;
        peakProcess = label;
      }
    }
    const pssSum = pssParts.reduce((total, [, mb]) => total + mb, 0);
    if (pssSum > peakServicePssMb) {
      peakServicePssMb = pssSum;
      peakServicePssParts = describe(pssParts);
    }
    samples++;
    peakSumMb = Math.max(peakSumMb, sum);
    if (service > peakServiceMb) {
      peakServiceMb = service;
      peakServiceParts = describe(parts);
    }
  };
  const timer = setInterval(tick, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      tick();
      return {
        peakSumMb,
        peakHwmMb,
        peakProcess,
        samples,
        peakServiceMb,
        peakServiceParts,
        peakServicePssMb,
        peakServicePssParts,
      };
    },
  };
}

interface LongRow {
  minutes: number;
  audioSeconds: number;
  fileMb: number;
  status: string;
  words: number;
  endToEndSeconds: number;
  processingSeconds: number;
  rtf: number;
  peakSumMb: number;
  peakHwmMb: number;
  peakProcess: string;
  peakServiceMb: number;
  peakServiceParts: string;
  peakServicePssMb: number;
  peakServicePssParts: string;
  errorMessage: string | null;
}

async function main(): Promise<void> {
  const minutesList = (argument('--minutes') ?? '60,180').split(',').map(Number);
  const directory = benchTempDir('long-audio');
  const machine = machineInfo();
  try {
    const files = minutesList.map((minutes) => ({ minutes, file: longSpeechFile(directory, minutes) }));
    const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
    const rows = await withSandbox(
      { ENGINE_TIMEOUT_MS: String(3 * 3600 * 1000), WORKER_CONCURRENCY: '1', LOG_LEVEL: 'log' },
      async (sandbox) => {
        const api = await sandbox.start('api');
        const worker = await sandbox.start('worker');
        const target = { baseUrl: api.url as string, apiKey: sandbox.apiKey };
        const measured: LongRow[] = [];
        for (const { minutes, file } of files) {
          console.error(`[long-audio] ${minutes} min (${file}), load ${loadAverage()}`);
          const sampler = sampleDescendants(worker.pid, api.pid);
          const run = await transcribeThroughService(target, file, {}, 3 * 3600 * 1000);
          const memory = sampler.stop();
          const [record] = await sandbox.query<{ started_at: Date | null; completed_at: Date | null }>(
            'SELECT started_at, completed_at FROM transcriptions WHERE id = $1',
            [run.transcription.id],
          );
          const audioSeconds = probeSeconds(file);
          const processingSeconds =
            record.started_at && record.completed_at
              ? (record.completed_at.getTime() - record.started_at.getTime()) / 1000
              : NaN;
          const row: LongRow = {
            minutes,
            audioSeconds,
            fileMb: fs.statSync(file).size / 1e6,
            status: run.transcription.status,
            words: run.transcription.resultJson?.words.length ?? 0,
            endToEndSeconds: run.endToEndSeconds,
            processingSeconds,
            rtf: processingSeconds / audioSeconds,
            ...memory,
            errorMessage: run.transcription.errorMessage,
          };
          console.error(`[long-audio] ${JSON.stringify(row)}`);
          measured.push(row);
        }
        return measured;
      },
    );
    // The longest file against the shortest, measured in this one run.
    const short = rows[0];
    const long = rows[rows.length - 1];
    const durationRatio = long.audioSeconds / short.audioSeconds;
    const timeRatio = long.processingSeconds / short.processingSeconds;
    const memoryRatio = long.peakSumMb / short.peakSumMb;
    const table = markdownTable(
      [
        'audio',
        'file',
        'status',
        'words',
        'end-to-end (s)',
        'processing (s)',
        'RTF',
        'peak engine RSS, sum of descendants (MB)',
        'peak VmHWM of one process (MB)',
        'peak of API + worker + descendants (MB)',
        'at that peak, per process (MB RSS)',
        'peak of the same, PSS summed (MB)',
        'at that peak, per process (MB PSS)',
      ],
      rows.map((row) => [
        `${fixed(row.audioSeconds / 60, 1)} min`,
        `MP3 64 kb/s, ${fixed(row.fileMb, 1)} MB`,
        row.status + (row.errorMessage ? ` (${row.errorMessage})` : ''),
        String(row.words),
        fixed(row.endToEndSeconds, 1),
        fixed(row.processingSeconds, 1),
        fixed(row.rtf, 3),
        fixed(row.peakSumMb, 0),
        `${fixed(row.peakHwmMb, 0)} (${row.peakProcess})`,
        fixed(row.peakServiceMb, 0),
        row.peakServiceParts,
        fixed(row.peakServicePssMb, 0),
        row.peakServicePssParts,
      ]),
    );
    const markdown =
      `${table}\n\nLongest vs shortest file (${fixed(durationRatio, 2)}× the audio): processing time ×${fixed(timeRatio, 2)} ` +
      `(target ≤ ${fixed(durationRatio * 1.05, 2)}, i.e. 3.15 for 3 h vs 1 h), peak engine memory ×${fixed(memoryRatio, 2)} ` +
      `(target ≤ 1.20, and < 600 MB: ${fixed(long.peakSumMb, 0)} MB); the whole service's peak ${fixed(long.peakServiceMb, 0)} MB RSS summed, ${fixed(long.peakServicePssMb, 0)} MB PSS summed ` +
      `(issue 36 item 5: API + worker + engine child ≤ 500 MB). ` +
      `Load average at start ${loadAtStart}, at end ${loadAverage()}. Machine: ${machine.cpus} × ${machine.cpuModel}.`;
    publish('long-audio', markdown, { rows, timeRatio, memoryRatio, loadAtStart });
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
