import { testAudio } from '../support/shared-paths';
import { expectMatchesSpec } from '../support/openapi-contract';
import { rawAudio, RealtimeTestClient } from '../support/realtime';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"
const WITH_SILENCE = testAudio('kaldi-gstreamer-server/test_with_silence.wav'); // 10.3 s, pauses between phrases

describe('Realtime transcription over WebSocket /v1/realtime', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ REALTIME_IDLE_TIMEOUT_MS: '1500' });
    port = await t.listeningPort();
  });
  afterAll(() => t.close());

  it('streams a clip at real-time pace: partials while speaking, a final per utterance, a completed transcription', async () => {
    const workspace = await t.createWorkspace({ name: 'Realtime paced' });
    const client = RealtimeTestClient.connect(port, bearer(workspace.apiKey));
    const created = await client.next('session.created');
    const session = created.session as { transcription_id: string };
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    await client.next('session.updated');
    await client.stream(rawAudio(GO_FORWARD, 's16le', 16000), 32000, { chunkMs: 100, paced: true });
    // Trailing silence lets server VAD end the utterance.
    await client.stream(Buffer.alloc(32000), 32000, { chunkMs: 100, paced: true });
    const completed = await client.next('conversation.item.input_audio_transcription.completed');
    expect(String(completed.transcript).toLowerCase()).toContain('forward');
    console.log(JSON.stringify(client.events.map((e) => [e.type, e.delta ?? e.partial ?? e.transcript ?? ''])));
    client.socket.close();
    await client.whenClosed();
    const response = await t.http().get(`/v1/transcriptions/${session.transcription_id}`).set(bearer(workspace.apiKey));
    expectMatchesSpec(response, 'getTranscription');
    console.log(JSON.stringify(response.body));
  });
});
