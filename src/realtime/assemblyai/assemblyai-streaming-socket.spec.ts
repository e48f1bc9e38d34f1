import type { WebSocket } from 'ws';
import { ClientEnd } from '../../../test/support/protocol-client-end';
import { AssemblyAiStreamingSocket } from './assemblyai-streaming-socket';

function harness(formatTurns = false) {
  const client = new ClientEnd();
  const adapter = new AssemblyAiStreamingSocket(
    client as unknown as WebSocket,
    { formatTurns },
    32000,
    1_900_000_000,
  );
  const toSession: Array<Record<string, unknown>> = [];
  adapter.on('message', (data: Buffer, isBinary: boolean) => {
    expect(isBinary).toBe(false);
    toSession.push(JSON.parse(data.toString()) as Record<string, unknown>);
  });
  const fromSession = (event: Record<string, unknown>) => adapter.send(JSON.stringify(event));
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

describe('AssemblyAiStreamingSocket', () => {
  it('client side: audio becomes appends, ForceEndpoint a commit, UpdateConfiguration a turn-silence update, Terminate a commit with a closing mark (once); the rest is ignored', () => {
    const { client, toSession } = harness();
    client.emit('message', Buffer.from([1, 2, 3, 4]), true);
    client.emit('message', Buffer.from('{"type":"ForceEndpoint"}'), false);
    client.emit('message', Buffer.from('{"type":"UpdateConfiguration","min_turn_silence":40}'), false);
    client.emit('message', Buffer.from('{"type":"UpdateConfiguration","max_turn_silence":900}'), false);
    client.emit('message', Buffer.from('{"type":"Terminate"}'), false);
    client.emit('message', Buffer.from('{"type":"Terminate"}'), false);
    client.emit('message', Buffer.from('not json'), false);
    client.emit('message', Buffer.from('{"type":"Unknown"}'), false);
    expect(toSession).toEqual([
      { type: 'input_audio_buffer.append', audio: Buffer.from([1, 2, 3, 4]).toString('base64') },
      { type: 'input_audio_buffer.commit' },
      {
        type: 'session.update',
        session: {
          type: 'transcription',
          audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 100 } } },
        },
      },
      { type: 'input_audio_buffer.commit' },
      { type: 'input_audio_buffer.commit', event_id: 'assemblyai-terminate' },
    ]);
  });

  it('server side: Begin with the transcription id, partial Turns (no final word), end-of-turn Turns in milliseconds, unformatted then formatted, turn_order counting turns', () => {
    const { client, fromSession } = harness(true);
    client.emit('message', Buffer.alloc(32000), true); // 1 s of audio
    fromSession({ type: 'session.created', session: { transcription_id: 'tr-1' } });
    fromSession({ type: 'conversation.item.input_audio_transcription.delta', delta: '', partial: 'go for' });
    fromSession({ type: 'conversation.item.input_audio_transcription.delta', delta: 'x', partial: 'go for' });
    fromSession(COMPLETED);
    fromSession({ ...COMPLETED, words: [] });
    fromSession(COMPLETED);
    fromSession({ type: 'input_audio_buffer.committed' });
    expect(client.written).toEqual([
      { type: 'Begin', id: 'tr-1', expires_at: 1_900_000_000 },
      {
        type: 'Turn',
        turn_order: 0,
        turn_is_formatted: false,
        end_of_turn: false,
        transcript: '',
        utterance: '',
        end_of_turn_confidence: 0,
        words: [
          { text: 'go', start: 1000, end: 1000, confidence: 0, word_is_final: false },
          { text: 'for', start: 1000, end: 1000, confidence: 0, word_is_final: false },
        ],
      },
      {
        type: 'Turn',
        turn_order: 0,
        turn_is_formatted: false,
        end_of_turn: true,
        transcript: 'go forward',
        utterance: 'go forward',
        end_of_turn_confidence: 1,
        words: [
          { text: 'go', start: 500, end: 900, confidence: 0.8, word_is_final: true },
          { text: 'forward', start: 900, end: 1700, confidence: 0, word_is_final: true },
        ],
      },
      {
        type: 'Turn',
        turn_order: 0,
        turn_is_formatted: true,
        end_of_turn: true,
        transcript: 'Go forward.',
        utterance: '',
        end_of_turn_confidence: 1,
        words: [
          { text: 'Go', start: 500, end: 900, confidence: 0.8, word_is_final: true },
          { text: 'forward.', start: 900, end: 1700, confidence: 0, word_is_final: true },
        ],
      },
      expect.objectContaining({ type: 'Turn', turn_order: 1, turn_is_formatted: false }),
      expect.objectContaining({ type: 'Turn', turn_order: 1, turn_is_formatted: true }),
    ]);
  });

  it('Terminate: once its mark is answered, Termination (whole seconds) and a normal close', () => {
    const { client, fromSession } = harness();
    fromSession({ type: 'session.created', session: { transcription_id: 'tr-1' } });
    client.emit('message', Buffer.alloc(32000 * 3 + 16000), true);
    client.emit('message', Buffer.from('{"type":"Terminate"}'), false);
    fromSession({
      type: 'error',
      error: { code: 'input_audio_buffer_commit_empty', message: 'empty', event_id: null },
    });
    expect(client.closedWith).toBeNull();
    fromSession({
      type: 'error',
      error: { code: 'input_audio_buffer_commit_empty', message: 'empty', event_id: 'assemblyai-terminate' },
    });
    expect(client.written.at(-1)).toEqual({
      type: 'Termination',
      audio_duration_seconds: 4,
      session_duration_seconds: 0,
    });
    expect(client.closedWith).toEqual([1000, '']);
  });

  it('an ending error closes with the code AssemblyAI’s SDK knows and the error’s sentence (at most 123 bytes) as the reason', () => {
    const { client, adapter, fromSession } = harness();
    fromSession({
      type: 'error',
      error: { code: 'session_expired', message: `A session lasts at most 60 s ${'x'.repeat(200)}` },
    });
    adapter.close(4009, 'session_expired');
    expect(client.closedWith?.[0]).toBe(3008);
    expect(Buffer.byteLength(client.closedWith?.[1] ?? '')).toBeLessThanOrEqual(123);
    expect(client.closedWith?.[1]).toMatch(/^A session lasts at most 60 s/);

    const other = harness();
    other.adapter.close(4002, 'insufficient_balance');
    expect(other.client.closedWith).toEqual([4002, 'insufficient_balance']);
  });
});
