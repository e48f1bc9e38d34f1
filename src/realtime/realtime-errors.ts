import { randomBytes } from 'node:crypto';

/**
 * An `error` event in OpenAI's Realtime shape: `type` is the class (`invalid_request_error` for what the client
 * sent, `server_error` for ours), `code` the specific reason, `param` the field it concerns.
 */
export interface RealtimeErrorBody {
  type: 'invalid_request_error' | 'server_error';
  code: string;
  message: string;
  param: string | null;
  event_id: string | null;
}

/** A client event the session refuses; the session itself stays open. */
export class RealtimeRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }

  static invalidValue(param: string, message: string): RealtimeRequestError {
    return new RealtimeRequestError('invalid_value', message, param);
  }
}

/**
 * Why the server ends a session: the WebSocket close code and the `error` event sent just before it. 4xxx codes
 * are this service's (RFC 6455 leaves 4000–4999 to applications), mirroring the HTTP status where one exists.
 */
export const REALTIME_CLOSE_REASONS = {
  unauthorized: { closeCode: 4001, type: 'invalid_request_error' },
  /** A credential without `transcriptions:write` (a read-only key, a viewer), or a key outside its networks. */
  forbidden: { closeCode: 4003, type: 'invalid_request_error' },
  insufficient_balance: { closeCode: 4002, type: 'invalid_request_error' },
  invalid_session: { closeCode: 4000, type: 'invalid_request_error' },
  idle_timeout: { closeCode: 4008, type: 'invalid_request_error' },
  session_expired: { closeCode: 4009, type: 'invalid_request_error' },
  message_too_large: { closeCode: 1009, type: 'invalid_request_error' },
  too_many_sessions: { closeCode: 4029, type: 'invalid_request_error' },
  server_busy: { closeCode: 1013, type: 'server_error' },
  recognition_lagging: { closeCode: 4013, type: 'server_error' },
  input_audio_buffer_full: { closeCode: 4014, type: 'invalid_request_error' },
  transcription_deleted: { closeCode: 4004, type: 'invalid_request_error' },
  credential_ended: { closeCode: 4001, type: 'invalid_request_error' },
  server_shutting_down: { closeCode: 1001, type: 'server_error' },
  server_error: { closeCode: 1011, type: 'server_error' },
} as const satisfies Record<string, { closeCode: number; type: RealtimeErrorBody['type'] }>;

export type RealtimeCloseReason = keyof typeof REALTIME_CLOSE_REASONS;

/** A refusal that ends the session (at open or later). */
export class RealtimeSessionEnd extends Error {
  constructor(
    readonly reason: RealtimeCloseReason,
    message: string,
    readonly param: string | null = null,
    /** For capacity refusals: when trying again makes sense. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

/** A server event as sent: every server event carries a fresh `event_id`. */
export function serverEventText(event: { type: string } & Record<string, unknown>): string {
  return JSON.stringify({ event_id: `event_${randomBytes(12).toString('hex')}`, ...event });
}

/** The `error` event announcing that the session ends, and why. */
export function endingErrorEvent(end: RealtimeSessionEnd): {
  type: 'error';
  error: RealtimeErrorBody & Record<string, unknown>;
} {
  return {
    type: 'error',
    error: {
      type: REALTIME_CLOSE_REASONS[end.reason].type,
      code: end.reason,
      message: end.message,
      param: end.param,
      event_id: null,
      ...(end.retryAfterMs !== null ? { retry_after_ms: end.retryAfterMs } : {}),
    },
  };
}
