import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { rawAudio, RealtimeTestClient } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"
const WITH_SILENCE = testAudio('kaldi-gstreamer-server/test_with_silence.wav'); // 10.3 s, phrases between pauses
const BYTES_PER_SECOND = 32_000; // PCM16 at 16 kHz
const MAX_BUFFER_SECONDS = 20;
/** Only bounds a hang: a session's backlog is decoded and diarized before it completes, slow on a loaded machine. */
const SESSION_DEADLINE_MS = 240_000;

/**
 * Realtime sessions at their limits: a client sending faster than real time within the input buffer and beyond
 * it, and the speakers of a session's audio computed when it ends. Every server event is checked against
 * asyncapi.yaml (RealtimeTestClient).
 */
describe('Realtime sessions: input buffer and speakers', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ REALTIME_MAX_BUFFER_SECONDS: String(MAX_BUFFER_SECONDS) });
    port = await t.listeningPort();
  });
  afterAll(() => t.close());

  async function completedTranscription(apiKey: string, id: string) {
    return eventually(
      'transcription completed',
      async () => {
        const response = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
        expectMatchesSpec(response, 'getTranscription');
        return response.body.data.status === 'completed' ? response.body.data : null;
      },
      SESSION_DEADLINE_MS,
      100,
    );
  }

  async function pcmSession(
    apiKey: string,
  ): Promise<{ client: RealtimeTestClient; transcriptionId: string }> {
    const client = RealtimeTestClient.connect(port, bearer(apiKey));
    const transcriptionId = await client.transcriptionId();
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    await client.next('session.updated');
    return { client, transcriptionId };
  }

  it(
    'takes a clip sent faster than real time within the buffer; its words get the speaker the diarizer found',
    async () => {
      const workspace = await t.createWorkspace({ name: 'Realtime fast within buffer' });
      const { client, transcriptionId } = await pcmSession(workspace.apiKey);
      const audio = rawAudio(WITH_SILENCE, 's16le', 16000);
      // 10.3 s sent at once, in 100 ms appends: far ahead of real time, within the 20 s buffer however slowly
      // recognition goes.
      await client.stream(audio, BYTES_PER_SECOND, { chunkMs: 100, paced: false });
      // Closing commits what is open, after recognition has taken everything sent.
      client.socket.close();

      expect(client.of('error')).toEqual([]);
      const done = await completedTranscription(workspace.apiKey, transcriptionId);
      expect(done.duration).toBe(audio.length / BYTES_PER_SECOND);
      expect(done.resultJson.words.length).toBeGreaterThan(3);
      // Diarized when the session ended, as a file job: every word has a speaker, numbered by first appearance.
      const speakers = done.resultJson.words.map((word: { speaker: string | null }) => word.speaker);
      expect(speakers[0]).toBe('SPEAKER_00');
      for (const speaker of speakers) expect(speaker).toMatch(/^SPEAKER_\d{2}$/);
    },
    SESSION_DEADLINE_MS + 30_000,
  );

  it(
    'handles the messages after a commit while the commit waits for recognition; the commit still answers',
    async () => {
      const workspace = await t.createWorkspace({ name: 'Realtime commit beside the queue' });
      const { client } = await pcmSession(workspace.apiKey);
      // The client commits: the whole buffer is one utterance, decoded in full before the commit is answered.
      client.send({
        type: 'session.update',
        session: { type: 'transcription', audio: { input: { turn_detection: null } } },
      });
      await client.next('session.updated', 2);
      const clip = rawAudio(WITH_SILENCE, 's16le', 16000);
      const speech = Buffer.concat([clip, clip]).subarray(0, (MAX_BUFFER_SECONDS - 2) * BYTES_PER_SECOND);
      await client.stream(speech, BYTES_PER_SECOND, { chunkMs: 500, paced: false });
      client.send({ type: 'input_audio_buffer.commit' });
      client.send({ type: 'after.the.commit', event_id: 'evt_after_commit' });
      // Appended while the commit waits: not part of it, and still there to commit once it is answered.
      client.append(rawAudio(GO_FORWARD, 's16le', 16000).subarray(0, BYTES_PER_SECOND));
      const error = await client.next('error');
      expect(error.error).toMatchObject({ code: 'invalid_event', event_id: 'evt_after_commit' });
      const completed = await client.next('conversation.item.input_audio_transcription.completed');
      // Answered while the commit still waited for 18 s of audio to be decoded, not after it.
      expect(client.events.indexOf(error)).toBeLessThan(client.events.indexOf(completed));
      expect(String(completed.transcript).length).toBeGreaterThan(0);
      client.send({ type: 'input_audio_buffer.commit', event_id: 'evt_second_commit' });
      const second = await client.next('conversation.item.input_audio_transcription.completed', 2);
      expect(second.audio_start_ms).toBe(completed.audio_end_ms);
      expect(client.of('error').map((event) => (event.error as { code: string }).code)).toEqual([
        'invalid_event',
      ]);
      client.socket.close();
    },
    SESSION_DEADLINE_MS + 30_000,
  );

  it(
    'refuses an append that would put more than the buffer ahead of recognition: told, closed 4014, what came before kept',
    async () => {
      const workspace = await t.createWorkspace({ name: 'Realtime over buffer' });
      const { client, transcriptionId } = await pcmSession(workspace.apiKey);
      const speech = Buffer.concat([rawAudio(GO_FORWARD, 's16le', 16000), Buffer.alloc(BYTES_PER_SECOND)]);
      // 3.8 s faster than real time: within the buffer.
      await client.stream(speech, BYTES_PER_SECOND, { chunkMs: 100, paced: false });
      // 21 s more in one append: whatever was decoded meanwhile, this alone is more than the buffer.
      client.append(Buffer.alloc(BYTES_PER_SECOND * (MAX_BUFFER_SECONDS + 1)));

      const error = await client.next('error');
      expect(error.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'input_audio_buffer_full',
        param: null,
      });
      const done = await completedTranscription(workspace.apiKey, transcriptionId);
      expect(await client.whenClosed()).toEqual({ code: 4014, reason: 'input_audio_buffer_full' });
      const completed = client.of('conversation.item.input_audio_transcription.completed');
      expect(completed.map((item) => String(item.transcript).toLowerCase()).join(' ')).toContain('forward');
      // The refused append is neither stored nor billed.
      expect(done.duration).toBe(speech.length / BYTES_PER_SECOND);
      expect(done.resultText.toLowerCase()).toContain('forward');
      const stored = await t
        .http()
        .get(`/v1/transcriptions/${transcriptionId}/audio`)
        .set(bearer(workspace.apiKey));
      expect(Number(stored.headers['content-length'])).toBe(44 + speech.length);
    },
    SESSION_DEADLINE_MS + 30_000,
  );
});
