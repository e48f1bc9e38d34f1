/**
 * Realtime sessions: N concurrent WebSocket streams of real English speech at real-time pace into one ROLE=api
 * process of a throwaway service, for --minutes each.
 *
 *   npm run bench:realtime
 *   node dist-bench/bench/realtime.js [--streams 4] [--minutes 5] [--stagger 1] [--capacity fixed|measured]
 *
 * --stagger: seconds between two streams' starts (0: lockstep). Each stream starts at another point of the
 * speech (stream i at i × 37 s, wrapping), so no two streams send the same clip at the same time.
 * --capacity fixed (default): REALTIME_MAX_SESSIONS = --streams, every stream admitted whatever the machine
 * sustains; measured: REALTIME_MAX_SESSIONS unset, so the process admits what it measures it can serve, and a
 * stream refused `server_busy` is counted as refused (not retried).
 *
 * Each stream sends 16 kHz PCM in 100 ms appends on a real-time schedule (server VAD on). Measured per stream,
 * on this process's clock:
 * - final latency: arrival of an item's `completed` − the moment the audio up to its `audio_end_ms` had been sent
 *   (so it includes nothing of the VAD's closing silence, which is inside audio_end_ms);
 * - partial cadence: time between consecutive deltas of the same item while it is open;
 * - lag trend: final latency in the first and the last minute (a growing lag shows as a growing latency).
 */
import { WebSocket } from 'ws';
import * as fs from 'node:fs';
import { benchTempDir, longSpeechFile } from './lib/bench-audio';
import {
  fixed,
  loadAverage,
  machineInfo,
  argument,
  markdownTable,
  numberArgument,
  percentile,
  publish,
  quietWaitMs,
  runMain,
  waitForQuietMachine,
} from './lib/measure';
import { sleep, withSandbox } from './lib/sandbox';

const BYTES_PER_SECOND = 32_000;
const CHUNK_MS = 100;

interface StreamFigures {
  finals: Array<{ sentAtMs: number; latencyMs: number }>;
  cadencesMs: number[];
  errors: string[];
  closeCode: number | null;
  refused: boolean;
}

async function runStream(url: string, apiKey: string, pcm: Buffer): Promise<StreamFigures> {
  const figures: StreamFigures = {
    finals: [],
    cadencesMs: [],
    errors: [],
    closeCode: null,
    refused: false,
  };
  const socket = new WebSocket(`${url.replace('http', 'ws')}/v1/realtime?model=standard`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  let started = 0;
  const lastDelta = new Map<string, number>();
  socket.on('message', (data) => {
    const now = performance.now();
    const event = JSON.parse((data as Buffer).toString('utf8')) as Record<string, unknown>;
    switch (event.type) {
      case 'conversation.item.input_audio_transcription.delta': {
        const item = String(event.item_id);
        const previous = lastDelta.get(item);
        if (previous !== undefined) figures.cadencesMs.push(now - previous);
        lastDelta.set(item, now);
        break;
      }
      case 'conversation.item.input_audio_transcription.completed': {
        const sentAtMs = Number(event.audio_end_ms);
        figures.finals.push({ sentAtMs, latencyMs: now - (started + sentAtMs) });
        break;
      }
      case 'error':
        if ((event.error as { code?: string } | undefined)?.code === 'server_busy') figures.refused = true;
        else figures.errors.push(JSON.stringify(event.error));
        break;
    }
  });
  const closed = new Promise<void>((resolve) =>
    socket.on('close', (code) => {
      figures.closeCode = code;
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(
    JSON.stringify({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    }),
  );
  const chunk = (BYTES_PER_SECOND * CHUNK_MS) / 1000;
  started = performance.now();
  for (let offset = 0; offset < pcm.length && figures.closeCode === null; offset += chunk) {
    socket.send(
      JSON.stringify({
        type: 'input_audio_buffer.append',
        audio: pcm.subarray(offset, offset + chunk).toString('base64'),
      }),
    );
    const due = started + ((offset + chunk) / BYTES_PER_SECOND) * 1000;
    await sleep(Math.max(0, due - performance.now()));
  }
  // Let the last utterance end by VAD, then close.
  await sleep(3000);
  socket.close();
  await closed;
  return figures;
}

async function main(): Promise<void> {
  const streams = numberArgument('--streams', 4);
  const minutes = numberArgument('--minutes', 5);
  const staggerSeconds = numberArgument('--stagger', 1);
  const measured = argument('--capacity') === 'measured';
  const machine = machineInfo();
  const directory = benchTempDir('realtime');
  try {
    const wav = fs.readFileSync(longSpeechFile(directory, minutes, 'wav'));
    const pcm = wav.subarray(44);
    const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
    const results = await withSandbox({ LOG_LEVEL: 'warn' }, async (sandbox) => {
      // Fixed: admitted whatever the process's capacity, the bench measures what it says. Measured: the
      // process decides (one workspace may hold them all, so only the capacity refuses).
      const api = await sandbox.start('api', {
        REALTIME_MAX_SESSIONS_PER_WORKSPACE: String(streams),
        REALTIME_MAX_PROCESS_SESSIONS_PER_WORKSPACE: String(streams),
        ...(measured ? {} : { REALTIME_MAX_SESSIONS: String(streams) }),
      });
      // Even byte counts both (PCM16), so the rotation never splits a sample.
      const offsetBytes = (index: number): number => (index * 37 * BYTES_PER_SECOND) % pcm.length;
      return Promise.all(
        Array.from({ length: streams }, async (_, index) => {
          await sleep(index * staggerSeconds * 1000);
          const start = offsetBytes(index);
          const rotated = Buffer.concat([pcm.subarray(start), pcm.subarray(0, start)]);
          return runStream(api.url as string, sandbox.apiKey, rotated);
        }),
      );
    });
    const admitted = results.filter((result) => !result.refused);
    const finals = admitted.flatMap((result) => result.finals);
    const latencies = finals.map((final) => final.latencyMs);
    const cadences = admitted.flatMap((result) => result.cadencesMs);
    const firstMinute = finals.filter((final) => final.sentAtMs < 60_000).map((final) => final.latencyMs);
    const lastMinute = finals
      .filter((final) => final.sentAtMs >= (minutes - 1) * 60_000)
      .map((final) => final.latencyMs);
    const figures = {
      streams,
      minutes,
      staggerSeconds,
      capacity: measured ? 'measured' : 'fixed',
      admitted: admitted.length,
      refused: results.length - admitted.length,
      finals: finals.length,
      finalLatencyMs: {
        p50: percentile(latencies, 50),
        p95: percentile(latencies, 95),
        max: Math.max(...latencies),
      },
      partialCadenceMs: {
        p50: percentile(cadences, 50),
        p95: percentile(cadences, 95),
        max: Math.max(...cadences),
      },
      finalLatencyP95FirstMinuteMs: percentile(firstMinute, 95),
      finalLatencyP95LastMinuteMs: percentile(lastMinute, 95),
      errors: results.flatMap((result) => result.errors),
      closeCodes: results.map((result) => result.closeCode),
      loadAtStart,
      loadAtEnd: loadAverage(),
    };
    const markdown = [
      `${streams} streams × ${minutes} min of English speech at real-time pace, started ${staggerSeconds} s apart, one ROLE=api process,`,
      `capacity ${figures.capacity}: ${figures.admitted} admitted, ${figures.refused} refused server_busy`,
      `(${machine.cpuModel}, ${machine.cpus} CPUs); load average at start ${loadAtStart}, at end ${figures.loadAtEnd}.`,
      '',
      markdownTable(
        [
          'finals',
          'final latency p50 / p95 / max (ms)',
          'partial cadence p50 / p95 / max (ms)',
          'final p95 first / last minute (ms)',
          'errors',
        ],
        [
          [
            String(finals.length),
            `${fixed(figures.finalLatencyMs.p50, 0)} / ${fixed(figures.finalLatencyMs.p95, 0)} / ${fixed(figures.finalLatencyMs.max, 0)}`,
            `${fixed(figures.partialCadenceMs.p50, 0)} / ${fixed(figures.partialCadenceMs.p95, 0)} / ${fixed(figures.partialCadenceMs.max, 0)}`,
            `${fixed(figures.finalLatencyP95FirstMinuteMs, 0)} / ${fixed(figures.finalLatencyP95LastMinuteMs, 0)}`,
            String(figures.errors.length),
          ],
        ],
      ),
    ].join('\n');
    publish('realtime', markdown, figures);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
