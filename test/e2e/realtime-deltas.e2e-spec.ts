import { rawAudio, RealtimeTestClient, type ServerEvent } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const BYTES_PER_SECOND = 32_000; // PCM16 at 16 kHz

/**
 * The 15 English single-speaker clips with human references (the WER tables' selection, bench/lib/bench-audio.ts
 * humanReferenceClips), all in test/fixtures/audio.
 */
const REFERENCE_CLIPS = [
  'coqui-stt/LDC93S1.wav',
  'coqui-stt/LDC93S1_opus.opus',
  'coqui-stt/LDC93S1_pcms16le_1_8000.wav',
  'pocketsphinx/goforward.wav',
  'pocketsphinx/sense_and_sensibility_01_austen_64kb-0870.wav',
  'pocketsphinx/sense_and_sensibility_01_austen_64kb-0920.wav',
  'pocketsphinx/cards_005.wav',
  'wenet/librispeech-1995-1837-0001.wav',
  'lhotse/2412-153948-0000.flac',
  'lhotse/LJ002-0020.wav',
  'speechbrain/LJ050-0131.wav',
  'lhotse/ES2011a.Headset-0-40s-46s.wav',
  'picovoice-leopard/test.wav',
  'picovoice-cheetah/test_en_norm.wav',
  'speech-to-phrase/en_whats_the_weather_like_in_New_York.wav',
];

type Completed = ServerEvent & { item_id: string; transcript: string };

/**
 * OpenAI clients concatenate an item's deltas (issue 35 item 6): on each reference clip, streamed with the
 * server's VAD, every item's deltas add up to its `completed` transcript exactly. Before, deltas carried words
 * of the live hypothesis that the utterance's end then revised ("at our mind on" sent, "And while my fellow
 * american." final).
 */
describe('Realtime deltas add up to the completed transcript (15 reference clips)', () => {
  let t: TestApp;
  let port: number;
  let apiKey: string;
  beforeAll(async () => {
    t = await startTestApp({ MINIMUM_BALANCE_EUR: '0.0001' });
    port = await t.listeningPort();
    apiKey = (await t.createWorkspace({ name: 'Deltas', balanceEur: 10 })).apiKey;
  });
  afterAll(() => t.close());

  it.each(REFERENCE_CLIPS)('%s', async (clip) => {
    const client = RealtimeTestClient.connect(port, bearer(apiKey));
    await client.transcriptionId();
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    await client.next('session.updated');
    const audio = Buffer.concat([rawAudio(testAudio(clip), 's16le', 16000), Buffer.alloc(BYTES_PER_SECOND)]);
    await client.stream(audio, BYTES_PER_SECOND, { chunkMs: 100, paced: false });
    // Commits are answered in order: the second one's answer (empty) comes after every transcript.
    client.send({ type: 'input_audio_buffer.commit' });
    client.send({ type: 'input_audio_buffer.commit' });
    await client.next('error');
    const completed = client.of('conversation.item.input_audio_transcription.completed') as Completed[];
    expect(completed.some((item) => item.transcript !== '')).toBe(true);
    for (const item of completed) {
      const deltas = client
        .of('conversation.item.input_audio_transcription.delta')
        .filter((delta) => delta.item_id === item.item_id)
        .map((delta) => String(delta.delta));
      expect({ item: item.item_id, deltas: deltas.join('') }).toEqual({
        item: item.item_id,
        deltas: item.transcript,
      });
    }
    client.socket.close();
    await client.whenClosed();
  });
});
