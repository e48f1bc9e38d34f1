import { execFileSync } from 'node:child_process';
import { WebSocket } from 'ws';
import { eventually } from './eventually';
import { expectMatchesRealtimeSpec } from './asyncapi-contract';

/** Only bounds a hang: recognition of a short clip answers in well under a second. */
const EVENT_DEADLINE_MS = 30_000;

/** A server event as received. */
export type ServerEvent = { type: string; event_id: string } & Record<string, unknown>;

/**
 * A WebSocket client of /v1/realtime for tests: every server event is kept in order and checked against
 * asyncapi.yaml as it arrives, and the close code and reason are recorded.
 */
export class RealtimeTestClient {
  readonly events: ServerEvent[] = [];
  closed: { code: number; reason: string } | null = null;
  readonly opened: Promise<void>;

  constructor(readonly socket: WebSocket) {
    this.opened = new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.on('message', (data) => {
      const event = JSON.parse((data as Buffer).toString('utf8')) as ServerEvent;
      expectMatchesRealtimeSpec(event);
      this.events.push(event);
    });
    socket.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
  }

  static connect(port: number, headers: Record<string, string>, query = ''): RealtimeTestClient {
    return new RealtimeTestClient(new WebSocket(`ws://127.0.0.1:${port}/v1/realtime${query}`, { headers }));
  }

  /** A session opened and switched to 16 kHz PCM16 input (`session.updated` received), ready for appends. */
  static async pcmSession(port: number, headers: Record<string, string>): Promise<RealtimeTestClient> {
    const client = RealtimeTestClient.connect(port, headers);
    await client.next('session.created');
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    await client.next('session.updated');
    return client;
  }

  send(event: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(event));
  }

  append(bytes: Buffer): void {
    this.send({ type: 'input_audio_buffer.append', audio: bytes.toString('base64') });
  }

  /** Streams `bytes` in appends of `chunkMs` of audio, pausing between them when `paced` (real time). */
  async stream(
    bytes: Buffer,
    bytesPerSecond: number,
    options: { chunkMs: number; paced: boolean },
  ): Promise<void> {
    const chunk = Math.round((bytesPerSecond * options.chunkMs) / 1000 / 2) * 2;
    const started = Date.now();
    for (let offset = 0; offset < bytes.length; offset += chunk) {
      this.append(bytes.subarray(offset, offset + chunk));
      if (options.paced) {
        const due = started + ((offset + chunk) / bytesPerSecond) * 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
      }
    }
  }

  /** Waits for session.created and answers the session's transcription id. */
  async transcriptionId(): Promise<string> {
    const created = await this.next('session.created');
    return (created.session as { transcription_id: string }).transcription_id;
  }

  of(type: string): ServerEvent[] {
    return this.events.filter((event) => event.type === type);
  }

  /** Waits for the `count`-th event of `type`. */
  async next(type: string, count = 1): Promise<ServerEvent> {
    return eventually(
      `${type} #${count}`,
      async () => {
        const found = this.of(type);
        if (found.length < count) {
          const errors = this.of('error').map((event) => JSON.stringify(event.error));
          throw new Error(`got ${this.events.map((event) => event.type).join(', ')} ${errors.join(' ')}`);
        }
        return found[count - 1];
      },
      EVENT_DEADLINE_MS,
      20,
    );
  }

  async whenClosed(): Promise<{ code: number; reason: string }> {
    return eventually('the close', async () => this.closed, EVENT_DEADLINE_MS, 20);
  }
}

/** A test clip as raw audio in a session format, converted by ffmpeg. */
export function rawAudio(path: string, format: 's16le' | 'mulaw' | 'alaw', rate: number): Buffer {
  return execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', path, '-f', format, '-ar', String(rate), '-ac', '1', '-'],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
}
