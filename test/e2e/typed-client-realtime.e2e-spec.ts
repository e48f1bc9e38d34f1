import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  RealtimeSessionClosedError,
  TranscriptionClient,
  type RealtimeServerEvent,
} from '../../clients/typescript/src';
import { rawAudio } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { startTestApp, TestApp } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');
const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"
const PCM16_16K = { type: 'audio/pcm', rate: 16000 } as const;

/** Raw audio as 100 ms chunks, as a microphone or a media stream delivers it. */
async function* chunks(audio: Buffer, bytes = 3200): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < audio.length; offset += bytes) yield audio.subarray(offset, offset + bytes);
}

/**
 * The typed client's realtime helper against the real service: an async iterator of server events over Node's
 * own WebSocket, with the API key or a minted client secret, and a refusal surfacing as a typed error.
 */
describe('Typed client: client.realtime', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startTestApp({ MINIMUM_BALANCE_EUR: '0.0001' });
    baseUrl = `http://127.0.0.1:${await t.listeningPort()}`;
  });
  afterAll(() => t.close());

  it('streams audio chunks and yields deltas then the completed item; the session is a stored transcription', async () => {
    const workspace = await t.createWorkspace({ name: 'Typed realtime' });
    const client = new TranscriptionClient({ baseUrl, apiKey: workspace.apiKey });
    const audio = Buffer.concat([rawAudio(GO_FORWARD, 's16le', 16000), Buffer.alloc(16000)]);
    const events: RealtimeServerEvent[] = [];
    for await (const event of client.realtime.transcribe(chunks(audio), {
      model: 'standard',
      session: { audio: { input: { format: PCM16_16K } } },
    })) {
      events.push(event);
    }
    const types = events.map((event) => event.type);
    expect(types.slice(0, 2)).toEqual(['session.created', 'session.updated']);
    expect(types).toContain('conversation.item.input_audio_transcription.delta');
    const completed = events.filter(
      (event) => event.type === 'conversation.item.input_audio_transcription.completed',
    );
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ transcript: expect.stringMatching(/^Go forward/) });
    const created = events[0] as Extract<
      RealtimeServerEvent,
      { type: 'session.created' | 'session.updated' }
    >;
    const done = await client.waitForCompletion(created.session.transcription_id, { timeoutMs: 30_000 });
    expect(done.status).toBe('completed');
    expect(done.resultText).toMatch(/^Go forward/);
  });

  it('opens the session with a client secret, as a browser page does, from a ReadableStream', async () => {
    const workspace = await t.createWorkspace({ name: 'Typed realtime secret' });
    const server = new TranscriptionClient({ baseUrl, apiKey: workspace.apiKey });
    const secret = await server.realtime.createClientSecret({
      session: { type: 'transcription', audio: { input: { format: PCM16_16K } } },
    });
    expect(secret.value).toMatch(/^ek_/);
    const audio = rawAudio(GO_FORWARD, 's16le', 16000);
    const stream = ReadableStream.from(chunks(audio));
    const page = new TranscriptionClient({ baseUrl, apiKey: '' });
    const transcripts: string[] = [];
    for await (const event of page.realtime.transcribe(stream, { clientSecret: secret.value })) {
      if (event.type === 'conversation.item.input_audio_transcription.completed')
        transcripts.push(event.transcript);
    }
    expect(transcripts.join(' ')).toMatch(/^Go forward/);
  });

  it('throws RealtimeSessionClosedError with the close code and the error event when the session is refused', async () => {
    const client = new TranscriptionClient({ baseUrl, apiKey: 'svc_live_not-a-key' });
    const events: string[] = [];
    const run = async () => {
      for await (const event of client.realtime.transcribe(chunks(Buffer.alloc(3200))))
        events.push(event.type);
    };
    const failure = await run().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RealtimeSessionClosedError);
    expect(failure).toMatchObject({
      code: 4001,
      reason: 'unauthorized',
      lastError: { code: 'unauthorized' },
    });
    expect(events).toEqual(['error']);
  });
  it('works where there is no global WebSocket (Node 20): a process without globalThis.WebSocket uses the ws package', async () => {
    const workspace = await t.createWorkspace({ name: 'Typed realtime without WebSocket' });
    const scratch = mkdtempSync(join(tmpdir(), 'stt-no-websocket-'));
    try {
      const script = join(scratch, 'no-websocket.mts');
      writeFileSync(
        join(scratch, 'audio.raw'),
        Buffer.concat([rawAudio(GO_FORWARD, 's16le', 16000), Buffer.alloc(16000)]),
      );
      writeFileSync(
        script,
        [
          `import { readFileSync } from 'node:fs';`,
          `import { TranscriptionClient } from ${JSON.stringify(join(ROOT, 'clients/typescript/src/index.ts'))};`,
          `delete (globalThis as { WebSocket?: unknown }).WebSocket;`,
          `console.log('global WebSocket: ' + typeof (globalThis as { WebSocket?: unknown }).WebSocket);`,
          `const audio = readFileSync(${JSON.stringify(join(scratch, 'audio.raw'))});`,
          `const chunks = Array.from({ length: Math.ceil(audio.length / 3200) }, (_, i) => audio.subarray(i * 3200, (i + 1) * 3200));`,
          `const client = new TranscriptionClient({ baseUrl: process.env.STT_BASE_URL!, apiKey: process.env.STT_API_KEY! });`,
          `for await (const event of client.realtime.transcribe(chunks, { session: { audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } } })) {`,
          `  if (event.type === 'conversation.item.input_audio_transcription.completed') console.log('completed: ' + event.transcript);`,
          `}`,
        ].join('\n'),
      );
      const outcome = await new Promise<{ code: number; output: string }>((resolve) => {
        execFile(
          join(ROOT, 'node_modules', '.bin', 'tsx'),
          [script],
          {
            cwd: ROOT,
            env: { ...process.env, STT_BASE_URL: baseUrl, STT_API_KEY: workspace.apiKey },
            timeout: 60_000,
          },
          (error, stdout, stderr) =>
            resolve({
              code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
              output: `${stdout}${stderr}`,
            }),
        );
      });
      expect(outcome.output).toContain('global WebSocket: undefined');
      expect(outcome).toMatchObject({ code: 0, output: expect.stringMatching(/completed: Go forward/) });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
