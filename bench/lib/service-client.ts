/**
 * A minimal client of the running service for the benches: upload a file, wait for the job to finish (over the
 * SSE stream, falling back to polling the status), read the record back, and time each step.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface ServiceWord {
  word: string;
  start: number;
  end: number;
  speaker: string | null;
}

export interface ServiceTranscription {
  id: string;
  status: string;
  resultText: string | null;
  duration: number | null;
  speakerCount: number | null;
  errorMessage: string | null;
  createdOn: string;
  completedAt: string | null;
  resultJson: { words: ServiceWord[] } | null;
}

export interface ServiceRun {
  transcription: ServiceTranscription;
  /** From the start of the upload to its 202 answer. */
  uploadSeconds: number;
  /** From the start of the upload until the client saw the terminal status (what a user waits). */
  endToEndSeconds: number;
  /** completedAt − createdOn of the record, both server clocks (queue + engine + completion, no upload). */
  serverSeconds: number | null;
}

export interface ServiceTarget {
  baseUrl: string;
  apiKey: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function elapsed(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e9;
}

function headers(target: ServiceTarget): Record<string, string> {
  return { Authorization: `Bearer ${target.apiKey}` };
}

/** GET with a retry on 429 (honours Retry-After) and on connection errors. */
async function getJson<T>(target: ServiceTarget, route: string): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(`${target.baseUrl}${route}`, { headers: headers(target) });
      if (response.status === 429 && attempt < 20) {
        await sleep(1000 * Number(response.headers.get('retry-after') ?? '1'));
        continue;
      }
      if (!response.ok) throw new Error(`GET ${route} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as T;
    } catch (error) {
      if (attempt >= 5 || (error as Error).message.startsWith('GET ')) throw error;
      await sleep(200);
    }
  }
}

const TERMINAL = new Set(['completed', 'failed']);

/** Reads the SSE stream until a terminal status; false when the stream could not be used. */
async function waitOverEvents(target: ServiceTarget, id: string, deadline: number): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
  try {
    const response = await fetch(`${target.baseUrl}/v1/transcriptions/${id}/events`, {
      headers: { ...headers(target), Accept: 'text/event-stream' },
      signal: controller.signal,
    });
    if (response.status !== 200 || !response.body) return false;
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const line of event.split('\n')) {
          if (!line.startsWith('data:')) continue;
          const frame = JSON.parse(line.slice(5)) as { status?: string };
          if (frame.status && TERMINAL.has(frame.status)) {
            controller.abort();
            return true;
          }
        }
      }
    }
    // The stream ended without a terminal frame (e.g. the record vanished): let the caller poll.
    return false;
  } catch (error) {
    if (controller.signal.aborted && Date.now() >= deadline)
      throw new Error(`job ${id} did not finish in time`);
    if (controller.signal.aborted) return true;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function waitByPolling(target: ServiceTarget, id: string, deadline: number): Promise<void> {
  for (;;) {
    const { data } = await getJson<{ data: { status: string } }>(target, `/v1/transcriptions/${id}/status`);
    if (TERMINAL.has(data.status)) return;
    if (Date.now() > deadline) throw new Error(`job ${id} did not finish in time (status ${data.status})`);
    await sleep(100);
  }
}

export async function transcribeThroughService(
  target: ServiceTarget,
  filePath: string,
  fields: Record<string, string> = {},
  timeoutMs = 30 * 60 * 1000,
): Promise<ServiceRun> {
  const started = process.hrtime.bigint();
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([fs.readFileSync(filePath)]), path.basename(filePath));
  const created = await fetch(`${target.baseUrl}/v1/transcriptions`, {
    method: 'POST',
    body: form,
    headers: headers(target),
  });
  if (created.status !== 202) {
    throw new Error(`upload of ${filePath} answered ${created.status}: ${await created.text()}`);
  }
  const uploadSeconds = elapsed(started);
  const { data } = (await created.json()) as { data: { id: string } };
  const deadline = Date.now() + timeoutMs;
  if (!(await waitOverEvents(target, data.id, deadline))) await waitByPolling(target, data.id, deadline);
  const endToEndSeconds = elapsed(started);
  const { data: transcription } = await getJson<{ data: ServiceTranscription }>(
    target,
    `/v1/transcriptions/${data.id}`,
  );
  const serverSeconds = transcription.completedAt
    ? (Date.parse(transcription.completedAt) - Date.parse(transcription.createdOn)) / 1000
    : null;
  return { transcription, uploadSeconds, endToEndSeconds, serverSeconds };
}

/** --service URL --api-key KEY from argv, or undefined when --service is absent. */
export function serviceTargetFromArguments(argv: readonly string[]): ServiceTarget | undefined {
  const value = (name: string): string | undefined => {
    const index = argv.indexOf(name);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const baseUrl = value('--service');
  if (!baseUrl) return undefined;
  const apiKey = value('--api-key');
  if (!apiKey) throw new Error('--service needs --api-key');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey };
}
