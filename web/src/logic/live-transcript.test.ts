import { describe, expect, it } from 'vitest';
import { applyServerEvent, base64, EMPTY_TRANSCRIPT, pcm16, realtimeUrl } from './live-transcript';

describe('applyServerEvent', () => {
  it('shows the partial hypothesis while speaking, then the final text of each utterance', () => {
    let state = applyServerEvent(EMPTY_TRANSCRIPT, {
      type: 'session.created',
      session: { transcription_id: 't-1' },
    });
    state = applyServerEvent(state, {
      type: 'conversation.item.input_audio_transcription.delta',
      item_id: 'a',
      delta: '',
      partial: 'go forward',
    });
    expect(state).toMatchObject({ transcriptionId: 't-1', partial: 'go forward', finals: [] });
    state = applyServerEvent(state, { type: 'input_audio_buffer.committed', item_id: 'a' });
    expect(state.pending).toEqual(['a']);
    state = applyServerEvent(state, {
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: 'a',
      transcript: 'Go forward ten meters.',
    });
    expect(state).toMatchObject({
      partial: '',
      pending: [],
      finals: [{ itemId: 'a', text: 'Go forward ten meters.' }],
    });
  });

  it('drops a hypothesis no final confirmed once the session has closed', () => {
    let state = applyServerEvent(EMPTY_TRANSCRIPT, {
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: 'item_1',
      transcript: 'Go forward ten meters.',
    });
    state = applyServerEvent(state, {
      type: 'conversation.item.input_audio_transcription.delta',
      item_id: 'item_2',
      delta: '',
      partial: 'and then',
    });
    expect(state.partial).toBe('and then');
    state = applyServerEvent(state, { type: 'session.closed' });
    expect(state).toMatchObject({
      partial: '',
      pending: [],
      finals: [{ itemId: 'item_1', text: 'Go forward ten meters.' }],
    });
  });

  it('keeps a refusal but not an empty final commit', () => {
    const empty = applyServerEvent(EMPTY_TRANSCRIPT, {
      type: 'error',
      error: { code: 'input_audio_buffer_commit_empty', message: 'empty' },
    });
    expect(empty.error).toBeNull();
    const refused = applyServerEvent(EMPTY_TRANSCRIPT, {
      type: 'error',
      error: { code: 'insufficient_balance', message: 'No balance.' },
    });
    expect(refused.error).toEqual({ code: 'insufficient_balance', message: 'No balance.' });
  });
});

describe('audio for the session', () => {
  it('turns samples into clipped PCM16 little-endian, and base64', () => {
    const bytes = pcm16(new Float32Array([0, 1, -1, 2, 0.5]));
    const view = new DataView(bytes.buffer);
    expect([0, 1, 2, 3, 4].map((index) => view.getInt16(index * 2, true))).toEqual([
      0, 32767, -32768, 32767, 16383,
    ]);
    expect(base64(new Uint8Array([1, 2, 3]))).toBe('AQID');
  });

  it('dials the page’s own host, wss: from an https: page', () => {
    expect(realtimeUrl({ protocol: 'https:', host: 'stt.example' })).toBe('wss://stt.example/v1/realtime');
    expect(realtimeUrl({ protocol: 'http:', host: '127.0.0.1:3000' })).toBe(
      'ws://127.0.0.1:3000/v1/realtime',
    );
  });
});
