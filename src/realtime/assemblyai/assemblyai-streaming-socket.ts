import type { WebSocket } from 'ws';
import { isRecord } from '../../common/is-record';
import { bareWord } from '../../deepgram-compat/deepgram-response.formatter';
import { ProtocolLayerSocket } from '../protocol-layer-socket';
import type { AssemblyAiStreamingOptions } from './assemblyai-streaming-params';

/** The commit a Terminate sends last: its (empty-buffer) answer means every transcript is out. */
const TERMINATE_MARK = 'assemblyai-terminate';

/**
 * Close codes of the session's ends that AssemblyAI's SDK knows under another number (its StreamingErrorType):
 * the rest (4001 not authorised, 4002 insufficient funds, 4029 rate limited, 1001/1011/1013…) already agree.
 */
const CLOSE_CODES: Readonly<Record<number, number>> = {
  /** session_expired: MaxSessionDurationExceeded. */
  4009: 3008,
};
/** A WebSocket close reason is at most 123 bytes. */
const MAX_REASON_BYTES = 123;

interface CompletedWord {
  word: string;
  start: number;
  end: number;
  confidence: number | null;
}

/**
 * AssemblyAI's Universal-Streaming protocol (`/v3/ws`) over a realtime session (docs/compatibility.md, "AssemblyAI
 * streaming"), as DeepgramLiveSocket does Deepgram's: the session speaks OpenAI's transcription protocol to this
 * object, which stands in for its WebSocket and translates both ways. Binary frames become
 * `input_audio_buffer.append`; `ForceEndpoint` a commit; `UpdateConfiguration` a `session.update` of the turn
 * silence; `Terminate` a commit, then `Termination` and a normal close once its last turn is out. The session's
 * server events become `Begin`, partial `Turn`s (from partials) and end-of-turn `Turn`s (from each completed
 * item, then its formatted twin with `format_turns`). An ending error closes the socket with the code AssemblyAI's
 * SDK knows and the error's sentence as the reason, which the SDK reports. So the sessions' one recognition path,
 * billing, limits, storage and drain serve this protocol too.
 */
export class AssemblyAiStreamingSocket extends ProtocolLayerSocket {
  private readonly opened = Date.now();
  private turnOrder = 0;
  private terminating = false;
  private terminated = false;
  /** The last ending error's sentence: the close reason. */
  private endingMessage: string | null = null;

  constructor(
    socket: WebSocket,
    private readonly options: AssemblyAiStreamingOptions,
    bytesPerSecond: number,
    /** When the session will be ended whatever it receives (its wall-clock limit), Unix seconds. */
    private readonly expiresAt: number,
  ) {
    super(socket, bytesPerSecond);
  }

  protected get finished(): boolean {
    return this.terminated;
  }

  /** The session ends the socket: with AssemblyAI's code for the reason, and the error's sentence. */
  close(code: number, reason: string): void {
    const sentence = this.endingMessage ?? reason;
    this.socket.close(CLOSE_CODES[code] ?? code, truncateReason(sentence));
  }

  protected receiveMessage(type: unknown, message: Record<string, unknown>): void {
    switch (type) {
      case 'ForceEndpoint':
        this.forward({ type: 'input_audio_buffer.commit' });
        return;
      case 'UpdateConfiguration':
        return this.updateConfiguration(message);
      case 'Terminate':
        if (this.terminating) return;
        this.terminating = true;
        this.forward({ type: 'input_audio_buffer.commit' });
        this.forward({ type: 'input_audio_buffer.commit', event_id: TERMINATE_MARK });
        return;
      default:
        // What the layer does not know is ignored (the session would answer an error event).
        return;
    }
  }

  /**
   * `min_turn_silence` (or the deprecated `min_end_of_turn_silence_when_confident`) becomes the session's turn
   * silence; the confidence threshold and `max_turn_silence` have no counterpart in the voice detector and are
   * accepted without effect (docs/compatibility.md).
   */
  private updateConfiguration(message: Record<string, unknown>): void {
    const raw = message.min_turn_silence ?? message.min_end_of_turn_silence_when_confident;
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw > 10_000) return;
    this.forward({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: Math.max(100, raw) } } },
      },
    });
  }

  protected translate(event: Record<string, unknown> & { type: string }): object[] {
    switch (event.type) {
      case 'session.created': {
        const session = isRecord(event.session) ? event.session : {};
        const id = typeof session.transcription_id === 'string' ? session.transcription_id : '';
        return [{ type: 'Begin', id, expires_at: this.expiresAt }];
      }
      case 'conversation.item.input_audio_transcription.delta': {
        if (event.delta !== '' || typeof event.partial !== 'string' || event.partial.trim() === '') return [];
        return [this.partialTurn(event.partial)];
      }
      case 'conversation.item.input_audio_transcription.completed':
        return this.completed(event);
      case 'error':
        return this.errorAnswered(event);
      default:
        return [];
    }
  }

  /**
   * A partial: the recogniser's current hypothesis of the open turn, every word not yet final. The recogniser
   * gives no times for a hypothesis: each word spans the turn so far (documented).
   */
  private partialTurn(partial: string): object {
    const end = Math.round(this.audioSeconds * 1000);
    const words = partial
      .split(/\s+/)
      .filter((word) => word !== '')
      .map((word) => ({ text: word, start: end, end, confidence: 0, word_is_final: false }));
    return {
      type: 'Turn',
      turn_order: this.turnOrder,
      turn_is_formatted: false,
      end_of_turn: false,
      transcript: '',
      utterance: '',
      end_of_turn_confidence: 0,
      words,
    };
  }

  private completed(event: Record<string, unknown>): object[] {
    const recognised = Array.isArray(event.words) ? (event.words as CompletedWord[]) : [];
    if (recognised.length === 0) return [];
    const words = recognised.map((word) => ({
      text: word.word,
      start: Math.round(word.start * 1000),
      end: Math.round(word.end * 1000),
      confidence: word.confidence ?? 0,
      word_is_final: true,
    }));
    // Unformatted as AssemblyAI sends it: lower case, no punctuation; formatted: the recogniser's own text.
    const plain = words.map((word) => bareWord(word.text).toLowerCase()).filter((word) => word !== '');
    const turn = {
      type: 'Turn',
      turn_order: this.turnOrder,
      turn_is_formatted: false,
      end_of_turn: true,
      transcript: plain.join(' '),
      utterance: plain.join(' '),
      end_of_turn_confidence: 1,
      words: words.map((word) => ({ ...word, text: bareWord(word.text).toLowerCase() })),
    };
    const messages: object[] = [turn];
    if (this.options.formatTurns) {
      messages.push({
        ...turn,
        turn_is_formatted: true,
        transcript: formatted(words.map((word) => word.text)),
        utterance: '',
        words,
      });
    }
    this.turnOrder += 1;
    return messages;
  }

  /**
   * The answer to a Terminate's last commit: every turn before it is out, so Termination follows. An ending
   * error's sentence becomes the close reason; other errors (an empty ForceEndpoint) are not shown, as
   * AssemblyAI's protocol has no error message for them.
   */
  private errorAnswered(event: Record<string, unknown>): object[] {
    const error = isRecord(event.error) ? event.error : {};
    if (error.event_id === TERMINATE_MARK) {
      this.terminated = true;
      return [
        {
          type: 'Termination',
          audio_duration_seconds: Math.round(this.audioSeconds),
          session_duration_seconds: Math.round((Date.now() - this.opened) / 1000),
        },
      ];
    }
    if (typeof error.message === 'string') this.endingMessage = error.message;
    return [];
  }
}

/** The recogniser's words as a formatted turn: a capital first letter and a closing full stop when none. */
function formatted(words: string[]): string {
  const text = words.join(' ').trim();
  if (text === '') return text;
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

function truncateReason(reason: string): string {
  let text = reason;
  while (Buffer.byteLength(text) > MAX_REASON_BYTES) text = text.slice(0, -2) + '…';
  return text;
}
