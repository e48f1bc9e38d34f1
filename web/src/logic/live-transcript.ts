/**
 * The Live page's model of a realtime session (asyncapi.yaml): server events folded into what the page shows —
 * the finished utterances, the one being spoken, the session's transcription — and the microphone's samples
 * turned into the session's audio (PCM16 little-endian, base64).
 */

export interface LiveUtterance {
  itemId: string;
  text: string;
}

export interface LiveTranscript {
  transcriptionId: string | null;
  /** Completed utterances, in order. */
  finals: LiveUtterance[];
  /** The hypothesis of the utterance being spoken (the server's `partial`), '' between utterances. */
  partial: string;
  /** Committed utterances whose text has not come yet. */
  pending: string[];
  error: { code: string; message: string } | null;
}

export const EMPTY_TRANSCRIPT: LiveTranscript = {
  transcriptionId: null,
  finals: [],
  partial: '',
  pending: [],
  error: null,
};

type ServerEvent = { type: string } & Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function applyServerEvent(state: LiveTranscript, event: ServerEvent): LiveTranscript {
  switch (event.type) {
    case 'session.created': {
      const session = event.session as { transcription_id?: string };
      return { ...state, transcriptionId: session.transcription_id ?? null };
    }
    case 'conversation.item.input_audio_transcription.delta':
      return {
        ...state,
        partial: typeof event.partial === 'string' ? event.partial : state.partial + text(event.delta),
      };
    case 'input_audio_buffer.committed':
      return { ...state, pending: [...state.pending, String(event.item_id)] };
    case 'conversation.item.input_audio_transcription.completed': {
      const itemId = String(event.item_id);
      const transcript = text(event.transcript).trim();
      return {
        ...state,
        finals: transcript === '' ? state.finals : [...state.finals, { itemId, text: transcript }],
        partial: '',
        pending: state.pending.filter((pending) => pending !== itemId),
      };
    }
    case 'session.closed':
      // The page's own event once the socket has closed: a hypothesis no `completed` confirmed is not part of
      // what was stored, so it leaves the screen (issue 35 item 6: a stale partial stayed after Stop).
      return { ...state, partial: '', pending: [] };
    case 'error': {
      const error = event.error as { code?: string; message?: string };
      // An empty final commit (the utterance was already committed by the server's VAD) is not a problem.
      if (error.code === 'input_audio_buffer_commit_empty') return state;
      return { ...state, error: { code: String(error.code), message: String(error.message) } };
    }
    default:
      return state;
  }
}

/** Web Audio samples (-1..1) as PCM16 little-endian, clipped. */
export function pcm16(samples: Float32Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let index = 0; index < samples.length; index++) {
    const sample = Math.max(-1, Math.min(1, samples[index]));
    view.setInt16(index * 2, sample < 0 ? sample * 0x8000 : sample * 0x7fff, true);
  }
  return bytes;
}

export function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

/** The WebSocket address of /v1/realtime on the page's own host (ws: or wss: as the page). */
export function realtimeUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/realtime`;
}
