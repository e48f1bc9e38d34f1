import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import createClient, { type Client } from 'openapi-fetch';
import { toProblemError } from './problem';
import {
  transcribeRealtime,
  type AudioChunks,
  type RealtimeServerEvent,
  type RealtimeTranscribeOptions,
} from './realtime';
import type { components, paths } from './schema';

type Schemas = components['schemas'];
export type Transcription = Schemas['Transcription'];
export type TranscriptionStatus = Schemas['TranscriptionStatus'];
export type ExportFormat = Schemas['ExportFormat'];
export type CreateTranscriptionForm = Schemas['CreateTranscriptionForm'];
export type ListTranscriptionsQuery = NonNullable<paths['/v1/transcriptions']['get']['parameters']['query']>;
type Accepted = paths['/v1/transcriptions']['post']['responses']['202']['content']['application/json'];
export type RealtimeClientSecret = Schemas['RealtimeClientSecret'];
export type RealtimeClientSecretRequest = Schemas['RealtimeClientSecretRequest'];

export interface TranscriptionClientOptions {
  /** Scheme, host and port, no trailing slash (`http://localhost:3000`). */
  baseUrl: string;
  /** An API key (`X-API-KEY`). */
  apiKey: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof globalThis.fetch;
}

/** What an upload accepts: a path on disk, a Node stream, or a Blob/File. */
export type UploadSource =
  | { path: string; fileName?: string }
  | { stream: NodeJS.ReadableStream; fileName: string; contentType?: string }
  | { blob: Blob; fileName?: string };

/** The form fields besides `file`, as the contract types them (all optional). */
export type UploadFields = Omit<CreateTranscriptionForm, 'file' | 'audio_url'>;

export interface UploadOptions {
  fields?: UploadFields;
  /** Free-form metadata, sent as the `metadata` form field (JSON). */
  metadata?: Record<string, string>;
  /** Replays of the same key return the same job (see `Idempotency-Key`). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Give up after this long (default 10 min). */
  timeoutMs?: number;
  /** Skip SSE and poll `/status` (also the fallback when the stream cannot be opened). */
  forcePolling?: boolean;
  /** Poll interval of the fallback (default 1000 ms). */
  pollIntervalMs?: number;
}

const TERMINAL: readonly TranscriptionStatus[] = ['completed', 'failed'];

async function toBlob(source: UploadSource): Promise<{ blob: Blob; fileName: string }> {
  if ('path' in source) {
    return { blob: await openAsBlob(source.path), fileName: source.fileName ?? basename(source.path) };
  }
  if ('stream' in source) {
    // FormData needs a sized body: the stream is read into memory (use `path` for large files).
    const chunks: Uint8Array[] = [];
    for await (const chunk of Readable.from(source.stream)) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array));
    }
    const bytes = new Uint8Array(Buffer.concat(chunks)); // a copy backed by a plain ArrayBuffer
    return { blob: new Blob([bytes], { type: source.contentType ?? '' }), fileName: source.fileName };
  }
  return { blob: source.blob, fileName: source.fileName ?? 'upload' };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

interface SseFrame {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/** Parses `text/event-stream` frames from a fetch body (WHATWG rules: lines, blank line ends a frame). */
export async function* parseSseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: SseFrame = { data: '' };
  let hasData = false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (hasData || frame.retry !== undefined || frame.event !== undefined) yield frame;
          frame = { data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue; // comment (heartbeat)
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          frame.data = hasData ? `${frame.data}\n${value}` : value;
          hasData = true;
        } else if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else if (field === 'retry' && /^\d+$/.test(value)) frame.retry = Number(value);
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * The typed client: `api` is the generated openapi-fetch client for every operation; the methods are the
 * helpers a generator cannot give. Non-2xx answers of the helpers throw `ApiProblemError`.
 */
export class TranscriptionClient {
  readonly api: Client<paths>;
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetchImpl: typeof globalThis.fetch;

  constructor(options: TranscriptionClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: { 'X-API-KEY': this.apiKey },
      fetch: (request) => this.fetchImpl(request),
    });
  }

  /**
   * Live transcription (WebSocket /v1/realtime): `transcribe(audio, options)` streams raw audio chunks and yields
   * every server event (deltas, completed items with words, errors) until the session ended; `createClientSecret`
   * mints a single-use secret for a browser page (which passes it as `clientSecret`).
   */
  readonly realtime = {
    transcribe: (
      audio: AudioChunks,
      options: RealtimeTranscribeOptions = {},
    ): AsyncGenerator<RealtimeServerEvent> =>
      transcribeRealtime({ baseUrl: this.baseUrl, apiKey: this.apiKey }, audio, options),
    createClientSecret: async (request: RealtimeClientSecretRequest = {}) => {
      const { data, error, response } = await this.api.POST('/v1/realtime/client_secrets', { body: request });
      if (!data) throw toProblemError(error, response);
      return data;
    },
  };

  /** Uploads a file (multipart) and returns the queued job. */
  async upload(source: UploadSource, options: UploadOptions = {}): Promise<Accepted['data']> {
    const { blob, fileName } = await toBlob(source);
    const form = new FormData();
    form.append('file', blob, fileName);
    for (const [name, value] of Object.entries(options.fields ?? {})) {
      if (value === undefined) continue;
      form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    if (options.metadata) form.append('metadata', JSON.stringify(options.metadata));
    const { data, error, response } = await this.api.POST('/v1/transcriptions', {
      params: { header: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {} },
      // The body is sent as built; the typed form above is what the contract accepts.
      body: {},
      bodySerializer: () => form,
      signal: options.signal,
    });
    if (!data) throw toProblemError(error, response);
    return data.data;
  }

  /** Resolves with the final detail when the job is `completed` or `failed` (SSE, falling back to polling). */
  async waitForCompletion(id: string, options: WaitOptions = {}): Promise<Schemas['TranscriptionDetail']> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 600_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    if (!options.forcePolling) {
      const ended = await this.followEvents(id, signal).catch((error: unknown) => {
        if (signal.aborted) throw error;
        return false; // stream unavailable: poll instead
      });
      if (!ended) await this.pollStatus(id, signal, options.pollIntervalMs ?? 1000);
    } else {
      await this.pollStatus(id, signal, options.pollIntervalMs ?? 1000);
    }
    return this.getTranscription(id, signal);
  }

  /** Follows the SSE stream until the terminal frame; reconnects with `Last-Event-ID` after `retry` ms. */
  private async followEvents(id: string, signal: AbortSignal): Promise<boolean> {
    let lastEventId: string | undefined;
    let retryMs = 3000;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const response = await this.fetchImpl(
        `${this.baseUrl}/v1/transcriptions/${encodeURIComponent(id)}/events`,
        {
          headers: {
            Accept: 'text/event-stream',
            'X-API-KEY': this.apiKey,
            ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
          },
          signal,
        },
      );
      if (response.status === 204) return true; // we already saw the terminal frame
      if (!response.ok) throw toProblemError(await response.json().catch(() => undefined), response);
      if (!response.body) return false;
      for await (const frame of parseSseFrames(response.body)) {
        if (frame.retry !== undefined) retryMs = frame.retry;
        if (frame.id !== undefined) lastEventId = frame.id;
        if (frame.event !== undefined || frame.data === '') continue; // `shutdown` or a bare retry hint
        const state = JSON.parse(frame.data) as { status: TranscriptionStatus };
        if (TERMINAL.includes(state.status)) return true;
      }
      await sleep(retryMs, signal); // closed without a terminal frame: reconnect as EventSource would
    }
    return false;
  }

  private async pollStatus(id: string, signal: AbortSignal, intervalMs: number): Promise<void> {
    for (;;) {
      const { data, error, response } = await this.api.GET('/v1/transcriptions/{id}/status', {
        params: { path: { id } },
        signal,
      });
      if (!data) throw toProblemError(error, response);
      if (TERMINAL.includes(data.data.status)) return;
      await sleep(intervalMs, signal);
    }
  }

  async getTranscription(id: string, signal?: AbortSignal): Promise<Schemas['TranscriptionDetail']> {
    const { data, error, response } = await this.api.GET('/v1/transcriptions/{id}', {
      params: { path: { id } },
      signal,
    });
    if (!data) throw toProblemError(error, response);
    return data.data;
  }

  /** Every transcription matching `query`, page after page (follows `cursor`). */
  async *iterateTranscriptions(
    query: Omit<ListTranscriptionsQuery, 'cursor'> = {},
  ): AsyncGenerator<Transcription> {
    let cursor: string | undefined;
    for (;;) {
      const { data, error, response } = await this.api.GET('/v1/transcriptions', {
        params: { query: { ...query, ...(cursor ? { cursor } : {}) } },
      });
      if (!data) throw toProblemError(error, response);
      yield* data.data;
      if (!data.hasMore || !data.cursor) return;
      cursor = data.cursor;
    }
  }

  /** An export: text for `txt`/`srt`/`vtt`, the JSON document for `json`, a Blob for `docx`. */
  async export(id: string, format: 'txt' | 'srt' | 'vtt'): Promise<string>;
  async export(id: string, format: 'json'): Promise<Schemas['TranscriptExport']>;
  async export(id: string, format: 'docx'): Promise<Blob>;
  async export(id: string, format: ExportFormat): Promise<string | Blob | Schemas['TranscriptExport']> {
    const parseAs = format === 'docx' ? 'blob' : format === 'json' ? 'json' : 'text';
    const { data, error, response } = await this.api.GET('/v1/transcriptions/{id}/export', {
      params: { path: { id }, query: { format } },
      parseAs,
    });
    if (data === undefined) throw toProblemError(error, response);
    return data as string | Blob | Schemas['TranscriptExport'];
  }
}
