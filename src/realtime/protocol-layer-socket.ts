import { EventEmitter } from 'node:events';
import type { RawData, WebSocket } from 'ws';
import { isRecord } from '../common/is-record';
import { rawText } from './websocket-text';

/**
 * A vendor's streaming protocol over a realtime session (Deepgram's live API, AssemblyAI's streaming): the
 * session speaks OpenAI's transcription protocol to this object, which stands in for its WebSocket and translates
 * both ways. What every such layer does alike is here: binary frames are raw audio, forwarded as
 * `input_audio_buffer.append` (their seconds counted); text frames are JSON messages handed to `receiveMessage`;
 * the session's server events are translated by `translate` and written; once `finished` (the vendor's last
 * message is out), the socket closes normally. So the sessions' one recognition path, billing, limits, storage and
 * drain serve every protocol.
 */
export abstract class ProtocolLayerSocket extends EventEmitter {
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  /** Seconds of audio the client sent. */
  protected audioSeconds = 0;

  constructor(
    protected readonly socket: WebSocket,
    private readonly bytesPerSecond: number,
  ) {
    super();
    socket.on('message', (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    socket.on('close', (code: number, reason: Buffer) => this.emit('close', code, reason));
    socket.on('error', (error: Error) => this.emit('error', error));
  }

  /** The stream's last message is out: the socket closes normally after it. */
  protected abstract get finished(): boolean;

  /** A client text message (`type` when it is a JSON object with one). */
  protected abstract receiveMessage(type: unknown, message: Record<string, unknown>): void;

  /** The vendor's messages for one of the session's server events (none to drop it). */
  protected abstract translate(event: Record<string, unknown> & { type: string }): object[];

  /** The session ends the socket with its close code and reason, which the layer may map. */
  abstract close(code: number, reason: string): void;

  get readyState(): number {
    return this.finished ? 2 : this.socket.readyState;
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** A server event of the session, as the vendor's messages (or nothing). `done` is called once it is written. */
  send(text: string, done?: (error?: Error) => void): void {
    const event = JSON.parse(text) as Record<string, unknown> & { type: string };
    const messages = this.translate(event);
    if (messages.length === 0) {
      done?.();
      return;
    }
    messages.forEach((message, index) =>
      this.socket.send(JSON.stringify(message), index === messages.length - 1 ? done : undefined),
    );
    if (this.finished) this.socket.close(1000, '');
  }

  /** Hands a client event to the session as if it had come over the socket. */
  protected forward(event: Record<string, unknown>): void {
    this.emit('message', Buffer.from(JSON.stringify(event)), false);
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      const audio = Buffer.isBuffer(data)
        ? data
        : Array.isArray(data)
          ? Buffer.concat(data)
          : Buffer.from(data);
      this.audioSeconds += audio.length / this.bytesPerSecond;
      this.forward({ type: 'input_audio_buffer.append', audio: audio.toString('base64') });
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(rawText(data));
    } catch {
      message = null;
    }
    // What is not a JSON object is ignored, as the vendors do (the session would answer an error event).
    if (isRecord(message)) this.receiveMessage(message.type, message);
  }
}
