import type { WebSocket } from 'ws';
import { isRecord } from '../../common/is-record';
import { bareWord } from '../../deepgram-compat/deepgram-response.formatter';
import { ProtocolLayerSocket } from '../protocol-layer-socket';
import type { DeepgramLiveOptions } from './deepgram-live-params';

/** The commit a Finalize or CloseStream sends last: its (empty-buffer) answer means every transcript is out. */
const FINALIZE_MARK = 'deepgram-finalize';
const CLOSE_MARK = 'deepgram-close-stream';

interface CompletedWord {
  word: string;
  start: number;
  end: number;
  confidence: number | null;
}

/**
 * Deepgram's live protocol over a realtime session (docs/compatibility.md, "Deepgram live"): the session speaks
 * OpenAI's transcription protocol to this object, which stands in for its WebSocket and translates both ways.
 * Binary frames (raw audio) become `input_audio_buffer.append`; `Finalize` a commit; `CloseStream` a commit,
 * then the Metadata message and a normal close once its last transcript is out; `KeepAlive` nothing. The
 * session's server events become `Results` (interim from partials, final from each completed item),
 * `SpeechStarted`, `UtteranceEnd` and, at the end, `Metadata`; the rest are dropped. An ending error closes the
 * socket with the session's close code and reason. So the sessions' one recognition path, billing, limits,
 * storage and drain serve both protocols.
 */
export class DeepgramLiveSocket extends ProtocolLayerSocket {
  private readonly created = new Date();
  private transcriptionId = '';
  /** Session seconds where the open item's speech began (the last final's end until speech starts). */
  private itemStart = 0;
  private lastEnd = 0;
  private finalizing = false;
  private closing = false;
  private metadataSent = false;

  constructor(
    socket: WebSocket,
    private readonly options: DeepgramLiveOptions,
    bytesPerSecond: number,
  ) {
    super(socket, bytesPerSecond);
  }

  protected get finished(): boolean {
    return this.closing && this.metadataSent;
  }

  /**
   * The session ends the socket: Metadata first (Deepgram's last message) when a session was opened, then the
   * session's close code. A session refused at its open (capacity, share) closes with its code alone.
   */
  close(code: number, reason: string): void {
    if (this.transcriptionId !== '') this.sendMetadata();
    this.socket.close(code, reason);
  }

  protected receiveMessage(type: unknown): void {
    switch (type) {
      case 'KeepAlive':
        return;
      case 'Finalize':
        this.finalizing = true;
        this.forward({ type: 'input_audio_buffer.commit' });
        this.forward({ type: 'input_audio_buffer.commit', event_id: FINALIZE_MARK });
        return;
      case 'CloseStream':
        this.closing = true;
        this.forward({ type: 'input_audio_buffer.commit' });
        this.forward({ type: 'input_audio_buffer.commit', event_id: CLOSE_MARK });
        return;
      default:
        // Deepgram ignores what it does not know; so does this layer.
        return;
    }
  }

  protected translate(event: Record<string, unknown> & { type: string }): object[] {
    switch (event.type) {
      case 'session.created': {
        const session = isRecord(event.session) ? event.session : {};
        this.transcriptionId = typeof session.transcription_id === 'string' ? session.transcription_id : '';
        return [];
      }
      case 'input_audio_buffer.speech_started': {
        this.itemStart = Number(event.audio_start_ms) / 1000;
        return this.options.vadEvents
          ? [{ type: 'SpeechStarted', channel: [0, 1], timestamp: this.itemStart }]
          : [];
      }
      case 'conversation.item.input_audio_transcription.delta': {
        if (!this.options.interimResults || event.delta !== '' || typeof event.partial !== 'string')
          return [];
        const transcript = this.options.punctuate ? event.partial : bareWords(event.partial);
        const start = Math.min(this.itemStart, this.audioSeconds);
        return [this.results(false, start, this.audioSeconds - start, transcript, [])];
      }
      case 'conversation.item.input_audio_transcription.completed':
        return this.completed(event);
      case 'error':
        return this.errorAnswered(event);
      default:
        return [];
    }
  }

  private completed(event: Record<string, unknown>): object[] {
    const start = Number(event.audio_start_ms) / 1000;
    const end = Number(event.audio_end_ms) / 1000;
    const words = (Array.isArray(event.words) ? (event.words as CompletedWord[]) : []).map((word) => ({
      word: bareWord(word.word),
      start: word.start,
      end: word.end,
      ...(word.confidence !== null && word.confidence !== undefined ? { confidence: word.confidence } : {}),
      ...(this.options.punctuate ? { punctuated_word: word.word } : {}),
    }));
    const transcript = words.map((word) => word.punctuated_word ?? word.word).join(' ');
    this.itemStart = end;
    this.lastEnd = words.at(-1)?.end ?? this.lastEnd;
    const messages: object[] = [this.results(true, start, end - start, transcript, words)];
    if (this.options.utteranceEnd && words.length > 0) {
      messages.push({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: this.lastEnd });
    }
    return messages;
  }

  /** The answer to a Finalize's or CloseStream's last commit: every transcript before it is out. */
  private errorAnswered(event: Record<string, unknown>): object[] {
    const error = isRecord(event.error) ? event.error : {};
    if (error.event_id === FINALIZE_MARK) this.finalizing = false;
    if (error.event_id === CLOSE_MARK) return this.metadata();
    // Other errors: an ending one is followed by the session's close (close code and reason); Deepgram's live
    // API has no error message, so a non-ending one (an empty Finalize) is not shown either.
    return [];
  }

  private results(
    isFinal: boolean,
    start: number,
    duration: number,
    transcript: string,
    words: object[],
  ): object {
    // Deepgram's schema requires an alternative's confidence: 0 when the recogniser gave none (documented).
    const confidences = words
      .map((word) => (word as { confidence?: number }).confidence)
      .filter((value): value is number => value !== undefined);
    return {
      type: 'Results',
      channel_index: [0, 1],
      duration: round(Math.max(0, duration)),
      start: round(start),
      is_final: isFinal,
      speech_final: isFinal,
      from_finalize: isFinal && this.finalizing,
      channel: {
        alternatives: [
          {
            transcript,
            confidence:
              confidences.length > 0 ? round(confidences.reduce((a, b) => a + b, 0) / confidences.length) : 0,
            words,
          },
        ],
      },
      metadata: {
        request_id: this.transcriptionId,
        model_info: { name: this.options.model, version: 'latest', arch: 'open-transcription-service' },
        model_uuid: this.transcriptionId,
      },
    };
  }

  private metadata(): object[] {
    if (this.metadataSent) return [];
    this.metadataSent = true;
    return [
      {
        type: 'Metadata',
        transaction_key: 'deprecated',
        request_id: this.transcriptionId,
        sha256: '',
        created: this.created.toISOString(),
        duration: round(this.audioSeconds),
        channels: 1,
      },
    ];
  }

  private sendMetadata(): void {
    if (this.socket.readyState !== this.OPEN) return;
    for (const message of this.metadata()) this.socket.send(JSON.stringify(message));
  }
}

function bareWords(text: string): string {
  return text
    .split(/\s+/)
    .filter((word) => word !== '')
    .map(bareWord)
    .join(' ');
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
