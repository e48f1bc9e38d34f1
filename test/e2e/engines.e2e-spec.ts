import { createReadStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { syntheticWhisperModel } from '../support/whisper-cpp/synthetic-whisper-model';
import { testAudio } from '../support/shared-paths';
import { startTestApp, TestApp } from '../support/test-app';
import { upload, waitForTerminal } from '../support/transcriptions';

type Word = { word: string; start: number; end: number; speaker: string | null };

/**
 * Engines per model tier, through the whole service. whisper.cpp runs for real (built by
 * scripts/build-whisper-cpp.sh) with the synthetic model (test/support/whisper-cpp/synthetic-whisper-model.ts), which always answers
 * " w100 w200 w300" in German; the OpenAI-compatible tier talks to a local server speaking OpenAI's format.
 */
describe('Configured engines per tier', () => {
  let t: TestApp;
  let apiKey: string;
  let openAiServer: Server;
  const openAiRequests: string[] = [];
  /** The `prompt` form field of each request the OpenAI-compatible server got (null when absent). */
  const openAiPrompts: (string | null)[] = [];

  beforeAll(async () => {
    openAiServer = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
      request.on('end', () => {
        openAiPrompts.push(/name="prompt"\r\n\r\n([^]*?)\r\n--/.exec(body)?.[1] ?? null);
        openAiRequests.push(
          `${request.method} ${request.url} ${request.headers.authorization ?? ''} ${body.includes('name="model"') ? 'model' : ''}`,
        );
        response.setHeader('Content-Type', 'application/json');
        response.end(
          JSON.stringify({
            task: 'transcribe',
            language: 'english',
            duration: 2.0,
            text: 'Go forward.',
            words: [
              { word: 'Go', start: 0.2, end: 0.5 },
              { word: 'forward.', start: 0.5, end: 1.1 },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => openAiServer.listen(0, '127.0.0.1', resolve));
    const { port } = openAiServer.address() as AddressInfo;
    t = await startTestApp({
      ENGINE_RECOGNIZER_PREMIUM: 'whisper-cpp',
      ENGINE_RECOGNIZER_PREMIUM_JADE: 'openai-compatible',
      WHISPER_CPP_MODEL_PREMIUM: syntheticWhisperModel(),
      WHISPER_CPP_BIN_DIR:
        process.env.WHISPER_CPP_BIN_DIR ?? join(__dirname, '..', '..', '.tools', 'whisper.cpp', 'bin'),
      OPENAI_STT_BASE_URL: `http://127.0.0.1:${port}`,
      OPENAI_STT_API_KEY: 'sk-test',
    });
    ({ apiKey } = await t.createWorkspace({ name: 'Engines', balanceEur: 1, freeTranscriptions: 0 }));
  });
  afterAll(async () => {
    await t.close();
    openAiServer.close();
  });

  it('premium → whisper.cpp with the synthetic model: its detected language (de, for the English JFK clip), token-timed words, one speaker', async () => {
    const created = await upload(t, apiKey, testAudio('whisper.cpp/jfk.wav'), { model: 'premium' });
    const { status, body } = await waitForTerminal(t, apiKey, created.body.data.id);
    expect(body.data.errorMessage).toBeNull();
    expect(status).toBe('completed');
    expect(body.data.detectedLanguage).toBe('de');
    const words = (body.data.resultJson as { words: Word[] }).words;
    expect(words.map((word) => word.word).slice(0, 3)).toEqual(['w100', 'w200', 'w300']);
    expect(words[0].start).toBeLessThan(words[1].start);
    expect(words.every((word) => word.speaker === 'SPEAKER_00')).toBe(true);
  });

  it('premium_jade → an OpenAI-compatible server: words, language name mapped to its code', async () => {
    const created = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'), {
      model: 'premium_jade',
    });
    const { status, body } = await waitForTerminal(t, apiKey, created.body.data.id);
    expect(body.data.errorMessage).toBeNull();
    expect(status).toBe('completed');
    expect(body.data.detectedLanguage).toBe('en');
    expect(body.data.resultText).toContain('forward');
    expect(
      openAiRequests.some((line) => line.startsWith('POST /v1/audio/transcriptions Bearer sk-test model')),
    ).toBe(true);
  });

  it('standard stays on PocketSphinx', async () => {
    const created = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'));
    const { body } = await waitForTerminal(t, apiKey, created.body.data.id);
    expect(body.data.resultText).toMatch(/forward/);
    expect(body.data.resultText).not.toMatch(/w100/);
  });

  it('the OpenAI-compatible route passes its prompt to the recogniser; a native upload its vocabulary', async () => {
    const port = await t.listeningPort();
    const sdk = new OpenAI({ apiKey, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    openAiPrompts.length = 0;
    const prompt = 'Robot drill, \u201cgo forward\u201d — ten meters.';
    const text = await sdk.audio.transcriptions.create({
      file: createReadStream(testAudio('pocketsphinx/goforward.wav')),
      model: 'premium_jade',
      prompt,
      response_format: 'text',
    });
    expect(text).toContain('forward');
    // The file is one chunk, so one request upstream, carrying the prompt exactly (UTF-8 in the form).
    expect(openAiPrompts.map((raw) => raw && Buffer.from(raw, 'latin1').toString('utf8'))).toEqual([prompt]);

    // A native upload sends no prompt: only its vocabulary reaches the recogniser.
    const created = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'), {
      model: 'premium_jade',
      vocabulary: JSON.stringify(['Kubernetes', 'gRPC']),
    });
    await waitForTerminal(t, apiKey, created.body.data.id);
    expect(openAiPrompts.slice(1)).toEqual(['Kubernetes, gRPC']);
  });
});
