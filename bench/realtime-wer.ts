/**
 * Streamed vs file WER: each of the 15 clips with human-written references (bench/wer.ts' selection) is
 * transcribed twice by one throwaway service (ROLE=all) at the same tier: uploaded as a file job, and streamed
 * through /v1/realtime (16 kHz PCM in 100 ms appends, server VAD on, then closed) and read back as the session's
 * stored transcription.
 *
 *   npx tsc -p tsconfig.bench.json && SHARED_DIR=/work/shared node dist-bench/bench/realtime-wer.js [--tier standard] [--silence-ms 500]
 *
 * Appends go out as fast as the session takes them (each clip is far shorter than the input buffer): the text
 * does not depend on the pace, only the latency does (bench/realtime.ts measures that).
 */
import * as fs from 'node:fs';
import { WebSocket } from 'ws';
import { benchTempDir, humanReferenceClips, pcm16k } from './lib/bench-audio';
import { argument, fixed, loadAverage, machineInfo, markdownTable, publish, runMain } from './lib/measure';
import { sleep, withSandbox } from './lib/sandbox';
import { transcribeThroughService, type ServiceTarget } from './lib/service-client';
import { overallWordErrorRate, wordErrorRate, type WordErrorRate } from './lib/word-error-rate';

const APPEND_BYTES = 3200; // 100 ms of 16 kHz PCM16

/** Streams a clip as one session; resolves with the session's transcription id once the socket closed. */
async function streamClip(
  target: ServiceTarget,
  tier: string,
  pcm: Int16Array,
  silenceMs: number | undefined,
): Promise<string> {
  const socket = new WebSocket(`${target.baseUrl.replace('http', 'ws')}/v1/realtime?model=${tier}`, {
    headers: { Authorization: `Bearer ${target.apiKey}` },
  });
  const events: Array<Record<string, unknown>> = [];
  socket.on('message', (data) => events.push(JSON.parse((data as Buffer).toString('utf8'))));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const waitFor = async (type: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = events.find((event) => event.type === type);
      if (found) return found;
      const error = events.find((event) => event.type === 'error');
      if (error) throw new Error(`session refused: ${JSON.stringify(error.error)}`);
      await sleep(10);
    }
  };
  const created = await waitFor('session.created');
  socket.send(
    JSON.stringify({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 16000 },
            // --silence-ms: how much silence ends an utterance (the session's default when not given).
            ...(silenceMs === undefined
              ? {}
              : { turn_detection: { type: 'server_vad', silence_duration_ms: silenceMs } }),
          },
        },
      },
    }),
  );
  await waitFor('session.updated');
  const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  for (let offset = 0; offset < bytes.length; offset += APPEND_BYTES) {
    socket.send(
      JSON.stringify({
        type: 'input_audio_buffer.append',
        audio: bytes.subarray(offset, offset + APPEND_BYTES).toString('base64'),
      }),
    );
  }
  socket.close();
  await closed;
  return (created.session as { transcription_id: string }).transcription_id;
}

async function completedText(target: ServiceTarget, id: string): Promise<string> {
  for (;;) {
    const response = await fetch(`${target.baseUrl}/v1/transcriptions/${id}`, {
      headers: { Authorization: `Bearer ${target.apiKey}` },
    });
    const { data } = (await response.json()) as {
      data: { status: string; resultText: string | null; errorMessage: string | null };
    };
    if (data.status === 'completed') return data.resultText ?? '';
    if (data.status === 'failed') throw new Error(`session ${id} failed: ${data.errorMessage}`);
    await sleep(100);
  }
}

interface Row {
  path: string;
  file: WordErrorRate;
  streamed: WordErrorRate;
  fileText: string;
  streamedText: string;
}

async function main(): Promise<void> {
  const tier = argument('--tier') ?? 'standard';
  const silenceArgument = argument('--silence-ms');
  const silenceMs = silenceArgument === undefined ? undefined : Number(silenceArgument);
  const machine = machineInfo();
  const directory = benchTempDir('realtime-wer');
  try {
    const clips = humanReferenceClips().map((clip) => ({ ...clip, pcm: pcm16k(clip.file, directory) }));
    const loadAtStart = loadAverage();
    const rows = await withSandbox({ LOG_LEVEL: 'warn' }, async (sandbox) => {
      const service = await sandbox.start('all', { REALTIME_MAX_SESSIONS_PER_WORKSPACE: '4' });
      const target: ServiceTarget = { baseUrl: service.url as string, apiKey: sandbox.apiKey };
      const measured: Row[] = [];
      for (const clip of clips) {
        const fileRun = await transcribeThroughService(target, clip.file, { model: tier });
        const fileText = fileRun.transcription.resultText ?? '';
        const streamedText = await completedText(target, await streamClip(target, tier, clip.pcm, silenceMs));
        measured.push({
          path: clip.path,
          file: wordErrorRate(clip.reference, fileText),
          streamed: wordErrorRate(clip.reference, streamedText),
          fileText,
          streamedText,
        });
        console.error(`[bench] ${clip.path}: file "${fileText}" / streamed "${streamedText}"`);
      }
      return measured;
    });
    const percent = (value: number) => `${fixed(value * 100, 1)} %`;
    const fileOverall = overallWordErrorRate(rows.map((row) => row.file));
    const streamedOverall = overallWordErrorRate(rows.map((row) => row.streamed));
    const table = markdownTable(
      ['clip', 'reference words', 'file WER', 'streamed WER', 'streamed − file (edits)'],
      [
        ...rows.map((row) => [
          row.path,
          String(row.file.referenceWords),
          percent(row.file.edits / row.file.referenceWords),
          percent(row.streamed.edits / row.streamed.referenceWords),
          String(row.streamed.edits - row.file.edits),
        ]),
        [
          '**overall**',
          String(rows.reduce((sum, row) => sum + row.file.referenceWords, 0)),
          `**${percent(fileOverall)}**`,
          `**${percent(streamedOverall)}**`,
          String(rows.reduce((sum, row) => sum + row.streamed.edits - row.file.edits, 0)),
        ],
      ],
    );
    const markdown = [
      `${rows.length} human-reference clips, tier ${tier}, silence ${silenceMs ?? 'default'} ms, one ROLE=all service (${machine.cpuModel}, ${machine.cpus} CPUs);`,
      `load average at start ${loadAtStart}, at end ${loadAverage()}. Streamed − file: ${fixed((streamedOverall - fileOverall) * 100, 1)} points.`,
      '',
      table,
    ].join('\n');
    publish('realtime-wer', markdown, {
      tier,
      silenceMs: silenceMs ?? null,
      fileOverall,
      streamedOverall,
      rows,
    });
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
