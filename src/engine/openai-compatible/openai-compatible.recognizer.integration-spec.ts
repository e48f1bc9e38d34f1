import busboy from 'busboy';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { testAudio } from '../../../test/support/shared-paths';
import { EngineError, RecognizedWord } from '../engine.types';
import {
  decodeClip,
  freeLoopbackPort,
  requireWhisperCppBinDir,
  RunningWhisperServer,
  startWhisperServer,
  whiteNoise,
} from '../../../test/support/whisper-cpp/whisper-cpp.testing';
import { syntheticWhisperModel } from '../../../test/support/whisper-cpp/synthetic-whisper-model';
import { OpenAiCompatibleRecognizer } from './openai-compatible.recognizer';
import { OpenAiCompatibleRecognizerSettings, transcriptionUrl } from './openai-compatible.settings';

jest.setTimeout(60_000);
/** A recogniser timeout longer than any test may run: what ends the request must be something else. */
const NEVER_MS = 10 * 60_000;

const MODEL = syntheticWhisperModel();
const JFK = testAudio('whisper.cpp/jfk.wav');
const binDir = requireWhisperCppBinDir(process.env.WHISPER_CPP_BIN_DIR);

let jfk: Float32Array;

function options(language = 'auto', vocabulary: string[] = [], signal = new AbortController().signal) {
  return { language, vocabulary, signal };
}

function expectWords(actual: RecognizedWord[], expected: Array<[string, number, number]>): void {
  expect(actual.map((w) => w.word)).toEqual(expected.map(([word]) => word));
  actual.forEach((w, i) => {
    expect(w.start).toBeCloseTo(expected[i][1], 2);
    expect(w.end).toBeCloseTo(expected[i][2], 2);
  });
}

async function engineError(promise: Promise<unknown>): Promise<EngineError> {
  const err: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

beforeAll(async () => {
  jfk = await decodeClip(JFK);
});

describe('OpenAiCompatibleRecognizer against a real whisper-server', () => {
  let server: RunningWhisperServer;

  beforeAll(async () => {
    // How an operator runs whisper.cpp's server as an OpenAI-compatible endpoint; `-l auto` because the
    // server's default language is en and auto requests carry no language field.
    server = await startWhisperServer(binDir, [
      '-m',
      MODEL,
      '-l',
      'auto',
      '-t',
      '2',
      '--inference-path',
      '/v1/audio/transcriptions',
    ]);
  });

  afterAll(async () => {
    await server?.stop();
  });

  function recognizer(extra: Partial<OpenAiCompatibleRecognizerSettings> = {}): OpenAiCompatibleRecognizer {
    return new OpenAiCompatibleRecognizer({
      baseUrl: server.baseUrl,
      model: 'whisper-1',
      timeoutMs: 30_000,
      ...extra,
    });
  }

  it("reads token-level words (merged) and maps the language name of whisper.cpp's verbose_json (the synthetic model's german, for the English JFK clip) to de", async () => {
    const out = await recognizer().recognize({ samples: jfk, offset: 3 }, options());
    expect(out.detectedLanguage).toBe('de'); // server says "german"
    expectWords(out.words, [
      ['w100', 3.34, 3.83],
      ['w200', 3.83, 4.66],
      ['w300', 4.66, 5.1],
    ]);
  });

  it('passes an explicit language and the vocabulary prompt', async () => {
    const fr = await recognizer().recognize({ samples: jfk, offset: 0 }, options('fr'));
    expect(fr.detectedLanguage).toBe('fr');
    expect(fr.words.map((w) => w.word)).toEqual(['w100', 'w200', 'w300']);

    // The synthetic decoder is steered by token position: a prompt shifts what it emits, so a different,
    // well-formed answer shows the prompt reached the decoder.
    const prompted = await recognizer().recognize(
      { samples: jfk, offset: 0 },
      options('auto', ['Kennedy', 'ask not']),
    );
    expect(prompted.detectedLanguage).toBe('de');
    expect(prompted.words.length).toBeGreaterThan(0);
    prompted.words.forEach((w) => expect(w.word).toMatch(/^w\d+$/));
    expect(prompted.words).not.toEqual(fr.words);
  });

  it('tolerates a base URL that already ends in /v1', async () => {
    const out = await recognizer({ baseUrl: `${server.baseUrl}/v1/` }).recognize(
      { samples: jfk, offset: 0 },
      options(),
    );
    expect(out.words).toHaveLength(3);
  });

  /** whisper-server finishes a request even after its client left: wait for it, so tests don't overlap. */
  async function serverIdle(): Promise<void> {
    await recognizer().recognize({ samples: whiteNoise(1), offset: 0 }, options());
  }

  it('times out when the server takes too long', async () => {
    await serverIdle();
    const err = await engineError(
      recognizer({ timeoutMs: 300 }).recognize({ samples: whiteNoise(120), offset: 0 }, options()),
    );
    expect(err.toErrorMessage()).toMatch(/^ENGINE_TIMEOUT: /);
  });
});

interface SeenRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  fields: Array<[string, string]>;
  file: { name: string; type: string; bytes: Buffer } | null;
}

/** Reads a multipart request the way a real server would. */
function readMultipart(req: IncomingMessage): Promise<Omit<SeenRequest, 'method' | 'url' | 'authorization'>> {
  return new Promise((resolve, reject) => {
    const fields: Array<[string, string]> = [];
    let file: SeenRequest['file'] = null;
    const bb = busboy({ headers: req.headers });
    bb.on('field', (name, value) => fields.push([name, value]));
    bb.on('file', (_name, stream, info) => {
      const parts: Buffer[] = [];
      stream.on('data', (b: Buffer) => parts.push(b));
      stream.on('end', () => {
        file = { name: info.filename ?? '', type: info.mimeType, bytes: Buffer.concat(parts) };
      });
    });
    bb.on('close', () => resolve({ fields, file }));
    bb.on('error', reject);
    req.pipe(bb);
  });
}

/** OpenAI's documented verbose_json answer with word timestamps. */
const OPENAI_ANSWER = {
  task: 'transcribe',
  language: 'english',
  duration: 2.4,
  text: 'And so, my fellow Americans',
  words: [
    { word: 'And', start: 0.3, end: 0.52 },
    { word: 'so,', start: 0.52, end: 0.9 },
    { word: 'my', start: 1.0, end: 1.2 },
    { word: 'fellow', start: 1.2, end: 1.6 },
    { word: 'Americans', start: 1.6, end: 2.3 },
  ],
  segments: [
    {
      id: 0,
      seek: 0,
      start: 0.3,
      end: 2.3,
      text: ' And so, my fellow Americans',
      tokens: [50364, 400, 370, 11, 452, 7177, 6280, 50479],
      temperature: 0,
      avg_logprob: -0.2,
      compression_ratio: 0.9,
      no_speech_prob: 0.01,
    },
  ],
};

describe('OpenAiCompatibleRecognizer against an OpenAI-shaped local server', () => {
  let server: Server;
  let baseUrl: string;
  let seen: SeenRequest[] = [];
  let respond: (res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      readMultipart(req).then(
        (body) => {
          seen.push({
            method: req.method ?? '',
            url: req.url ?? '',
            authorization: req.headers.authorization,
            ...body,
          });
          respond(res);
        },
        () => res.writeHead(400).end('bad multipart'),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen = [];
    respond = (res) => json(res, 200, OPENAI_ANSWER);
  });

  /**
   * An answer that never comes: `arrived` resolves once the whole request has been read (it is in flight),
   * `left` once the client has closed the connection. A client that does not give up waits forever, so the
   * test fails at its own timeout instead of passing on a lucky clock.
   */
  function holdAnswer(): { arrived: Promise<void>; left: Promise<void> } {
    let arrive: () => void = () => undefined;
    let leave: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const left = new Promise<void>((resolve) => (leave = resolve));
    respond = (res) => {
      res.on('close', () => leave());
      arrive();
    };
    return { arrived, left };
  }

  function json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  function recognizer(extra: Partial<OpenAiCompatibleRecognizerSettings> = {}): OpenAiCompatibleRecognizer {
    return new OpenAiCompatibleRecognizer({ baseUrl, model: 'whisper-1', timeoutMs: 5_000, ...extra });
  }

  it('reads the words array and maps the language name to its code', async () => {
    const out = await recognizer().recognize({ samples: jfk.subarray(0, 16000 * 3), offset: 10 }, options());
    expect(out.detectedLanguage).toBe('en');
    expectWords(out.words, [
      ['And', 10.3, 10.52],
      ['so,', 10.52, 10.9],
      ['my', 11.0, 11.2],
      ['fellow', 11.2, 11.6],
      ['Americans', 11.6, 12.3],
    ]);
  });

  it('sends the documented multipart fields, the WAV chunk and the bearer key', async () => {
    const samples = jfk.subarray(0, 16000 * 2);
    await recognizer({ apiKey: 'sk-test-123', model: 'Systran/faster-whisper-large-v3' }).recognize(
      { samples, offset: 0 },
      options('de', ['Kubernetes', 'Grafana']),
    );
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/v1/audio/transcriptions');
    expect(request.authorization).toBe('Bearer sk-test-123');
    expect(request.fields).toEqual([
      ['model', 'Systran/faster-whisper-large-v3'],
      ['response_format', 'verbose_json'],
      ['timestamp_granularities[]', 'word'],
      ['timestamp_granularities[]', 'segment'],
      ['language', 'de'],
      ['prompt', 'Kubernetes, Grafana'],
    ]);
    expect(request.file?.name).toBe('chunk.wav');
    expect(request.file?.type).toBe('audio/wav');
    const wav = request.file!.bytes;
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt16LE(22)).toBe(1); // mono
    expect(wav.readUInt32LE(24)).toBe(16000);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.readUInt32LE(40)).toBe(samples.length * 2);
  });

  it('omits language for auto, sends no key when none is set, and uses a configured path', async () => {
    await recognizer({ path: '/inference' }).recognize(
      { samples: jfk.subarray(0, 16000), offset: 0 },
      options(),
    );
    const [request] = seen;
    expect(request.url).toBe('/inference');
    expect(request.authorization).toBeUndefined();
    expect(request.fields.map(([name]) => name)).not.toContain('language');
    expect(request.fields.map(([name]) => name)).not.toContain('prompt');
  });

  it('accepts a language code instead of a name, and Javanese both ways', async () => {
    respond = (res) => json(res, 200, { ...OPENAI_ANSWER, language: 'jw' });
    const out = await recognizer().recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options('jv'));
    expect(out.detectedLanguage).toBe('jv');
    expect(seen[0].fields).toContainEqual(['language', 'jw']);
  });

  it('falls back to segment timing when there is no word list', async () => {
    respond = (res) =>
      json(res, 200, {
        language: 'english',
        text: 'ask not what',
        segments: [{ id: 0, start: 1, end: 2.2, text: ' ask not what' }],
      });
    const out = await recognizer().recognize({ samples: jfk.subarray(0, 16000 * 3), offset: 5 }, options());
    expectWords(out.words, [
      // 1.2 s shared by length (3 + 3 + 4 characters).
      ['ask', 6, 6.36],
      ['not', 6.36, 6.72],
      ['what', 6.72, 7.2],
    ]);
  });

  it('500 is ENGINE_FAILED with the server message', async () => {
    respond = (res) => json(res, 500, { error: { message: 'CUDA out of memory', type: 'server_error' } });
    const err = await engineError(
      recognizer().recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options()),
    );
    expect(err.code).toBe('ENGINE_FAILED');
    expect(err.message).toMatch(/HTTP 500: CUDA out of memory/);
  });

  it('4xx is ENGINE_FAILED with the server message', async () => {
    respond = (res) => json(res, 404, { detail: "Model 'whisper-9' is not installed locally." });
    const err = await engineError(
      recognizer().recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options()),
    );
    expect(err.code).toBe('ENGINE_FAILED');
    expect(err.message).toMatch(/HTTP 404: Model 'whisper-9' is not installed locally\./);
  });

  it('aborts an in-flight request with the abort reason and closes its connection', async () => {
    const answer = holdAnswer();
    const controller = new AbortController();
    // A timeout beyond the test's own: only the abort can end the request in time.
    const running = recognizer({ timeoutMs: NEVER_MS }).recognize(
      { samples: jfk.subarray(0, 16000), offset: 0 },
      options('auto', [], controller.signal),
    );
    await answer.arrived;
    const reason = new Error('job cancelled');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    await answer.left;
  });

  it('a server that does not answer is ENGINE_TIMEOUT, and the request is ended', async () => {
    const answer = holdAnswer();
    const err = await engineError(
      recognizer({ timeoutMs: 300 }).recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options()),
    );
    expect(err.code).toBe('ENGINE_TIMEOUT');
    await answer.arrived;
    await answer.left;
  });

  it('a server that stalls mid-answer is ENGINE_TIMEOUT too', async () => {
    respond = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"language":"english",');
    };
    const err = await engineError(
      recognizer({ timeoutMs: 300 }).recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options()),
    );
    expect(err.code).toBe('ENGINE_TIMEOUT');
  });

  it('a connection the server drops before answering is tried once more, on a new connection', async () => {
    let dropped = 0;
    respond = (res) => {
      if (dropped++ === 0) res.socket?.destroy();
      else json(res, 200, OPENAI_ANSWER);
    };
    const out = await recognizer().recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options());
    expect({ requests: seen.length, words: out.words.length }).toEqual({ requests: 2, words: 5 });
  });

  it('a server that drops every connection is ENGINE_FAILED after the second try', async () => {
    respond = (res) => res.socket?.destroy();
    const err = await engineError(
      recognizer().recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options()),
    );
    expect({ code: err.code, requests: seen.length }).toEqual({ code: 'ENGINE_FAILED', requests: 2 });
    expect(err.message).toMatch(/cannot reach .*(ECONNRESET|UND_ERR_SOCKET|EPIPE)/);
  });

  it('an answer that is not a transcription is ENGINE_FAILED', async () => {
    respond = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
    const err = await engineError(
      recognizer().recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options()),
    );
    expect(err.code).toBe('ENGINE_FAILED');
    expect(err.message).toMatch(/unreadable transcription/);
  });

  it('close() ends in-flight requests and refuses new ones', async () => {
    const answer = holdAnswer();
    const r = recognizer({ timeoutMs: NEVER_MS });
    const running = r.recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options());
    await answer.arrived;
    await r.close();
    expect((await engineError(running)).message).toMatch(/closed/);
    await answer.left;
    expect((await engineError(r.recognize({ samples: jfk, offset: 0 }, options()))).message).toMatch(
      /closed/,
    );
  });
});

describe('OpenAiCompatibleRecognizer without a server', () => {
  it('a refused connection is ENGINE_FAILED naming the cause', async () => {
    const port = await freeLoopbackPort(); // free = nobody listens
    const r = new OpenAiCompatibleRecognizer({
      baseUrl: `http://127.0.0.1:${port}`,
      model: 'm',
      timeoutMs: 5_000,
    });
    const err = await engineError(r.recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options()));
    expect(err.code).toBe('ENGINE_FAILED');
    expect(err.message).toMatch(/cannot reach .*ECONNREFUSED/);
  });

  it('rejects a language Whisper does not know', async () => {
    const r = new OpenAiCompatibleRecognizer({ baseUrl: 'http://127.0.0.1:9', model: 'm', timeoutMs: 1_000 });
    const err = await engineError(r.recognize({ samples: jfk.subarray(0, 16000), offset: 0 }, options('xx')));
    expect(err.code).toBe('UNSUPPORTED_LANGUAGE');
  });

  it('joins base URL and path', () => {
    expect(transcriptionUrl('http://h:8000')).toBe('http://h:8000/v1/audio/transcriptions');
    expect(transcriptionUrl('http://h:8000/')).toBe('http://h:8000/v1/audio/transcriptions');
    expect(transcriptionUrl('http://h:8000/v1')).toBe('http://h:8000/v1/audio/transcriptions');
    expect(transcriptionUrl('https://h/prefix', 'inference')).toBe('https://h/prefix/inference');
  });
});
