/**
 * Live transcription over /v1/realtime (asyncapi.yaml) with the platform's WebSocket: Node 22+ (its global
 * WebSocket, which also takes headers) and browsers; where there is no global WebSocket (Node 20) the `ws`
 * package's, which takes the same arguments. Audio goes in as chunks of raw audio in the session's format,
 * server events come out of an async iterator.
 */
import type { components } from './schema';

/** The configuration a session starts with; as `session` of `POST /v1/realtime/client_secrets`. */
export type RealtimeSessionConfig = components['schemas']['RealtimeSessionConfig'];
export type RealtimeAudioFormat = components['schemas']['RealtimeAudioFormat'];

export interface RealtimeWord {
  word: string;
  start: number;
  end: number;
  confidence: number | null;
}

/** The server events of a transcription session (asyncapi.yaml); every one has `type` and `event_id`. */
export type RealtimeServerEvent =
  | {
      type: 'session.created' | 'session.updated';
      event_id: string;
      session: { id: string; transcription_id: string; tier: string } & Record<string, unknown>;
    }
  | {
      type: 'conversation.item.input_audio_transcription.delta';
      event_id: string;
      item_id: string;
      delta: string;
      /** Extension: the whole hypothesis of the utterance so far. */
      partial: string;
    }
  | {
      type: 'conversation.item.input_audio_transcription.completed';
      event_id: string;
      item_id: string;
      transcript: string;
      words: RealtimeWord[];
      audio_start_ms: number;
      audio_end_ms: number;
      transcription_id: string;
    }
  | {
      type: 'error';
      event_id: string;
      error: { type: string; code: string; message: string; param: string | null; event_id: string | null };
    }
  | ({
      type:
        | 'input_audio_buffer.speech_started'
        | 'input_audio_buffer.speech_stopped'
        | 'input_audio_buffer.committed'
        | 'input_audio_buffer.cleared';
      event_id: string;
      item_id?: string;
    } & Record<string, unknown>);

/** Raw audio in the session's format (PCM16 little-endian mono, or G.711 bytes). */
export type AudioChunks = AsyncIterable<Uint8Array> | Iterable<Uint8Array> | ReadableStream<Uint8Array>;

export interface RealtimeTranscribeOptions {
  /** A tier, `whisper-1` or a `gpt-…` name (the standard tier). Default: the standard tier. */
  model?: string;
  /** Sent as `session.update` before any audio; e.g. `{ audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } }`. */
  session?: RealtimeSessionConfig;
  /**
   * A client secret (`POST /v1/realtime/client_secrets`) instead of the client's API key: what a browser page
   * uses, sent as the `openai-insecure-api-key.` subprotocol.
   */
  clientSecret?: string;
  signal?: AbortSignal;
}

/** The session ended other than by the client (a refusal or a limit): the close code and the last `error`. */
export class RealtimeSessionClosedError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    readonly lastError: Extract<RealtimeServerEvent, { type: 'error' }>['error'] | null,
  ) {
    super(`Realtime session closed (${code} ${reason}): ${lastError?.message ?? 'no error event'}`);
    this.name = 'RealtimeSessionClosedError';
  }
}

/** Close codes of a session the client ended itself. */
const NORMAL_CLOSES = new Set([1000, 1005]);
/** Appends stop while this much is waiting in the socket's buffer: audio is read only as fast as it goes out. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * Opens a session, streams `audio` and yields every server event until the session has ended: after the audio,
 * the open utterance is committed, the iterator waits for every committed item's `…completed`, then closes the
 * socket (the transcription then completes on the server, `transcription_id` in `session.created`).
 */
export async function* transcribeRealtime(
  connection: { baseUrl: string; apiKey?: string },
  audio: AudioChunks,
  options: RealtimeTranscribeOptions = {},
): AsyncGenerator<RealtimeServerEvent> {
  const url = new URL(`${connection.baseUrl.replace(/\/+$/, '')}/v1/realtime`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (options.model) url.searchParams.set('model', options.model);
  const socket = await openSocket(url, connection.apiKey, options.clientSecret);
  const inbox = new EventInbox(socket);
  const abort = (): void => socket.close(1000);
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    let sending: Promise<void> | null = null;
    const committed = new Set<string>();
    const completed = new Set<string>();
    let finalCommitAnswered = false;
    let audioDone = false;
    for await (const event of inbox) {
      yield event;
      if (event.type === 'session.created' && !sending) {
        if (options.session) send(socket, { type: 'session.update', session: options.session });
        else sending = startSending();
      } else if (event.type === 'session.updated' && !sending) {
        sending = startSending();
      } else if (event.type === 'input_audio_buffer.committed' && event.item_id) {
        committed.add(event.item_id);
        if (audioDone) finalCommitAnswered = true;
      } else if (event.type === 'conversation.item.input_audio_transcription.completed') {
        completed.add(event.item_id);
      } else if (event.type === 'error' && event.error.code === 'input_audio_buffer_commit_empty') {
        finalCommitAnswered = true;
      } else if (event.type === 'error' && !sending && event.error.param?.startsWith('session')) {
        // The session.update was refused: no audio in a format the server did not take.
        socket.close(1000);
      }
      if (finalCommitAnswered && [...committed].every((item) => completed.has(item))) socket.close(1000);
    }
    if (sending) await sending;
    const closed = inbox.closed;
    if (closed && !NORMAL_CLOSES.has(closed.code)) {
      throw new RealtimeSessionClosedError(closed.code, closed.reason, inbox.lastError);
    }

    async function startSending(): Promise<void> {
      try {
        for await (const chunk of iterate(audio)) {
          if (socket.readyState !== socket.OPEN) return;
          send(socket, { type: 'input_audio_buffer.append', audio: toBase64(chunk) });
          while (socket.bufferedAmount > MAX_BUFFERED_BYTES && socket.readyState === socket.OPEN) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
        audioDone = true;
        if (socket.readyState === socket.OPEN) send(socket, { type: 'input_audio_buffer.commit' });
      } catch (error) {
        socket.close(1000);
        throw error;
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', abort);
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(1000);
  }
}

async function openSocket(
  url: URL,
  apiKey: string | undefined,
  clientSecret: string | undefined,
): Promise<WebSocket> {
  const Socket = await webSocketClass();
  if (clientSecret) return new Socket(url, ['realtime', `openai-insecure-api-key.${clientSecret}`]);
  if (!apiKey) throw new TypeError('transcribeRealtime needs an API key or a client secret');
  // Node's WebSocket (undici) and the `ws` package take headers (an options object in place of the protocols);
  // a browser's does not, and must use a client secret.
  const init = { headers: { Authorization: `Bearer ${apiKey}` } };
  return new Socket(url, init as unknown as string[]);
}

/**
 * The platform's WebSocket, else the `ws` package's (Node 20 has no global one): the same constructor
 * arguments, `addEventListener`, `readyState`/`OPEN`, `bufferedAmount`, text messages as strings. Imported only
 * when needed, by a name bundlers do not follow, so a browser build never pulls `ws` in.
 */
async function webSocketClass(): Promise<typeof WebSocket> {
  if (typeof globalThis.WebSocket === 'function') return globalThis.WebSocket;
  const specifier = 'ws';
  let loaded: { default?: unknown; WebSocket?: unknown };
  try {
    loaded = (await import(specifier)) as { default?: unknown; WebSocket?: unknown };
  } catch {
    throw new TypeError(
      'This runtime has no global WebSocket (Node before 22): install the ws package (npm install ws)',
    );
  }
  return (loaded.WebSocket ?? loaded.default) as typeof WebSocket;
}

function send(socket: WebSocket, event: Record<string, unknown>): void {
  socket.send(JSON.stringify(event));
}

async function* iterate(audio: AudioChunks): AsyncGenerator<Uint8Array> {
  if (typeof (audio as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (audio as ReadableStream<Uint8Array>).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  yield* audio as AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

function toBase64(bytes: Uint8Array): string {
  if (typeof Buffer !== 'undefined')
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

/** The socket's events as an async iterable that ends at the close. */
class EventInbox implements AsyncIterable<RealtimeServerEvent> {
  private readonly queue: RealtimeServerEvent[] = [];
  private wake: (() => void) | null = null;
  closed: { code: number; reason: string } | null = null;
  lastError: Extract<RealtimeServerEvent, { type: 'error' }>['error'] | null = null;

  constructor(socket: WebSocket) {
    socket.addEventListener('message', (message: { data: unknown }) => {
      const event = JSON.parse(String(message.data)) as RealtimeServerEvent;
      if (event.type === 'error') this.lastError = event.error;
      this.queue.push(event);
      this.wake?.();
    });
    socket.addEventListener('close', (close: { code: number; reason: string }) => {
      this.closed = { code: close.code, reason: close.reason };
      this.wake?.();
    });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RealtimeServerEvent> {
    for (;;) {
      const next = this.queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }
}
