import type { WebSocket } from 'ws';
import { ClientEnd } from '../../../test/support/protocol-client-end';
import { DeepgramLiveSocket } from './deepgram-live-socket';
import type { DeepgramLiveOptions } from './deepgram-live-params';

const OPTIONS: DeepgramLiveOptions = {
  model: 'nova-2',
  interimResults: true,
  punctuate: true,
  vadEvents: true,
  utteranceEnd: true,
};

function harness(options: Partial<DeepgramLiveOptions> = {}) {
  const client = new ClientEnd();
  const adapter = new DeepgramLiveSocket(client as unknown as WebSocket, { ...OPTIONS, ...options }, 32000);
  const toSession: Array<Record<string, unknown>> = [];
  adapter.on('message', (data: Buffer, isBinary: boolean) => {
    expect(isBinary).toBe(false);
    toSession.push(JSON.parse(data.toString()) as Record<string, unknown>);
  });
  const fromSession = (event: Record<string, unknown>) => adapter.send(JSON.stringify(event));
  fromSession({ type: 'session.created', session: { transcription_id: 'tr-1' } });
  return { client, adapter, toSession, fromSession };
}

const COMPLETED = {
  type: 'conversation.item.input_audio_transcription.completed',
  transcript: 'Go forward.',
  audio_start_ms: 500,
  audio_end_ms: 1800,
  words: [
    { word: 'Go', start: 0.5, end: 0.9, confidence: 0.8 },
    { word: 'forward.', start: 0.9, end: 1.7, confidence: null },
  ],
};

describe('DeepgramLiveSocket', () => {
  it('client side: audio becomes appends, Finalize and CloseStream commits with a closing mark, KeepAlive nothing', () => {
    const { client, toSession } = harness();
    client.emit('message', Buffer.from([1, 2, 3, 4]), true);
    client.emit('message', Buffer.from('{"type":"KeepAlive"}'), false);
    client.emit('message', Buffer.from('{"type":"Finalize"}'), false);
    client.emit('message', Buffer.from('not json'), false);
    client.emit('message', Buffer.from('{"type":"CloseStream"}'), false);
    expect(toSession).toEqual([
      { type: 'input_audio_buffer.append', audio: Buffer.from([1, 2, 3, 4]).toString('base64') },
      { type: 'input_audio_buffer.commit' },
      { type: 'input_audio_buffer.commit', event_id: 'deepgram-finalize' },
      { type: 'input_audio_buffer.commit' },
      { type: 'input_audio_buffer.commit', event_id: 'deepgram-close-stream' },
    ]);
  });

  it('server side: speech start, interim from a partial, final with words, UtteranceEnd; the rest dropped', () => {
    const { client, fromSession } = harness();
    client.emit('message', Buffer.alloc(32000), true); // one second received
    fromSession({ type: 'input_audio_buffer.speech_started', audio_start_ms: 500, item_id: 'i' });
    fromSession({ type: 'conversation.item.input_audio_transcription.delta', delta: '', partial: 'Go for' });
    fromSession({ type: 'input_audio_buffer.committed', item_id: 'i' });
    fromSession({
      type: 'conversation.item.input_audio_transcription.delta',
      delta: 'Go forward.',
      partial: 'x',
    });
    fromSession(COMPLETED);
    expect(client.written.map((message) => message.type)).toEqual([
      'SpeechStarted',
      'Results',
      'Results',
      'UtteranceEnd',
    ]);
    const [started, interim, final, end] = client.written;
    expect(started).toEqual({ type: 'SpeechStarted', channel: [0, 1], timestamp: 0.5 });
    expect(interim).toMatchObject({
      is_final: false,
      start: 0.5,
      duration: 0.5,
      channel: { alternatives: [{ transcript: 'Go for', words: [] }] },
    });
    expect(final).toMatchObject({
      is_final: true,
      speech_final: true,
      from_finalize: false,
      start: 0.5,
      duration: 1.3,
      metadata: { request_id: 'tr-1', model_info: { name: 'nova-2' } },
      channel: {
        alternatives: [
          {
            transcript: 'Go forward.',
            confidence: 0.8,
            words: [
              { word: 'go', start: 0.5, end: 0.9, confidence: 0.8, punctuated_word: 'Go' },
              { word: 'forward', start: 0.9, end: 1.7, punctuated_word: 'forward.' },
            ],
          },
        ],
      },
    });
    expect(end).toEqual({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: 1.7 });
  });

  it('options off: no interims, no SpeechStarted, no UtteranceEnd, bare words', () => {
    const { client, fromSession } = harness({
      interimResults: false,
      vadEvents: false,
      utteranceEnd: false,
      punctuate: false,
    });
    fromSession({ type: 'input_audio_buffer.speech_started', audio_start_ms: 500 });
    fromSession({ type: 'conversation.item.input_audio_transcription.delta', delta: '', partial: 'Go' });
    fromSession(COMPLETED);
    expect(client.written).toHaveLength(1);
    expect(client.written[0]).toMatchObject({ channel: { alternatives: [{ transcript: 'go forward' }] } });
  });

  it('Finalize marks its finals; CloseStream ends with Metadata, then a normal close', () => {
    const { client, adapter, fromSession } = harness();
    client.emit('message', Buffer.from('{"type":"Finalize"}'), false);
    fromSession(COMPLETED);
    fromSession({
      type: 'error',
      error: { code: 'input_audio_buffer_commit_empty', event_id: 'deepgram-finalize' },
    });
    fromSession(COMPLETED);
    expect(client.written.filter((m) => m.type === 'Results').map((m) => m.from_finalize)).toEqual([
      true,
      false,
    ]);
    client.emit('message', Buffer.from('{"type":"CloseStream"}'), false);
    fromSession({
      type: 'error',
      error: { code: 'input_audio_buffer_commit_empty', event_id: 'deepgram-close-stream' },
    });
    expect(client.written.at(-1)).toMatchObject({ type: 'Metadata', request_id: 'tr-1', channels: 1 });
    expect(client.closedWith).toEqual([1000, '']);
    expect(adapter.readyState).not.toBe(adapter.OPEN);
  });

  it('a session refused at its open closes with its code and no Metadata', () => {
    const client = new ClientEnd();
    const adapter = new DeepgramLiveSocket(client as unknown as WebSocket, OPTIONS, 32000);
    adapter.send(JSON.stringify({ type: 'error', error: { code: 'server_busy', message: 'busy' } }));
    adapter.close(4009, 'server_busy');
    expect(client.written).toEqual([]);
    expect(client.closedWith).toEqual([4009, 'server_busy']);
  });

  it('an ending error closes with the session’s code after Metadata', () => {
    const { client, adapter, fromSession } = harness();
    fromSession({ type: 'error', error: { code: 'idle_timeout', message: 'No speech' } });
    adapter.close(4008, 'idle_timeout');
    expect(client.written.map((m) => m.type)).toEqual(['Metadata']);
    expect(client.closedWith).toEqual([4008, 'idle_timeout']);
  });
});
