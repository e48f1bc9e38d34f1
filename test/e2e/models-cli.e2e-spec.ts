import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WHISPER_CPP_HF_REVISION } from '../../src/engine/models/model-catalogue';
import { ConnectProxy } from '../support/connect-proxy';
import { selfSignedCertificate } from '../support/self-signed-certificate';
import { baseTestEnvironment } from '../support/test-environment';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const MODEL_PATH = 'ggerganov/whisper.cpp/resolve/main/ggml-synthetic-e2e.bin';
const ARCHIVE_PATH = 'k2-fsa/sherpa-onnx/releases/download/speaker-segmentation-models/synthetic-seg.tar.bz2';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node dist/cli.js …` exactly as operators run it; resolves with the exit code instead of throwing. */
function cli(env: Record<string, string | undefined>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const merged: NodeJS.ProcessEnv = { ...process.env, ...baseTestEnvironment() };
    // The machine's own model and proxy settings must not leak into a test against loopback servers.
    const proxyVariables = /^(https?_proxy|no_proxy)$/i;
    for (const key of Object.keys(merged))
      if (key.startsWith('MODELS_') || proxyVariables.test(key)) delete merged[key];
    for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
    execFile(process.execPath, [CLI, ...args], { env: merged }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function oneJsonLine(text: string): Record<string, unknown> {
  const lines = text.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]) as Record<string, unknown>;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

type Behaviour =
  'serve' | 'cut-first' | 'cut-every' | 'ignore-range' | 'stall' | 'rate-limit-first' | 'forbid-range';

interface RecordedRequest {
  url: string;
  range: string | undefined;
  /** performance.now() when the request arrived. */
  at: number;
}

/** 'cut-every' sends at most this many bytes per response, then drops the connection. */
const CUT_EVERY_BYTES = 700_000;

/**
 * A real HTTP server on 127.0.0.1 with the official path layout behind MODELS_SOURCE_URL. Like Hugging Face,
 * the model path answers with a relative redirect to a "CDN" path that serves the bytes (with Range support).
 */
class ModelServer {
  readonly requests: RecordedRequest[] = [];

  /** With `tls` it speaks https (a self-signed certificate the client is told to trust). */
  constructor(tls?: { key: Buffer; cert: Buffer }) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => this.handle(req, res);
    this.server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  }

  private behaviour: Behaviour = 'serve';
  private readonly files = new Map<string, Buffer>();
  private readonly server: http.Server;
  private served = 0;
  /** The Retry-After value 'rate-limit-first' sends with its 429 (computed when it answers). */
  retryAfter: () => string = () => '1';

  reset(behaviour: Behaviour = 'serve'): void {
    this.requests.length = 0;
    this.behaviour = behaviour;
    this.served = 0;
    this.retryAfter = () => '1';
  }

  /** The requests for the bytes themselves (after the redirect). */
  bodyRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.url.startsWith('/cdn/'));
  }

  add(urlPath: string, bytes: Buffer): void {
    this.files.set(`/${urlPath}`, bytes);
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const scheme = this.server instanceof https.Server ? 'https' : 'http';
    return `${scheme}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = req.url ?? '/';
    this.requests.push({ url, range: req.headers.range, at: performance.now() });
    if (this.files.has(url)) {
      res.writeHead(302, { location: `/cdn${url}` }).end();
      return;
    }
    const body = url.startsWith('/cdn/') ? this.files.get(url.slice('/cdn'.length)) : undefined;
    if (!body) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    this.served += 1;
    if (this.behaviour === 'stall') return; // accepts the request, never answers
    if (this.behaviour === 'rate-limit-first' && this.served === 1) {
      // Hugging Face's rate limit: 429 with the time to wait.
      res.writeHead(429, { 'retry-after': this.retryAfter() }).end('rate limited');
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range && this.behaviour === 'forbid-range') {
      // A CDN that refuses the ranged request (an expired signed URL answers the same).
      res.writeHead(403).end('Forbidden');
      return;
    }
    if (range && this.behaviour !== 'ignore-range') {
      const start = Number(range[1]);
      res.writeHead(206, {
        'content-length': body.length - start,
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
      });
      this.send(res, body.subarray(start));
      return;
    }
    res.writeHead(200, { 'content-length': body.length });
    if (this.behaviour === 'cut-first' && this.served === 1) {
      // Half the body, then the connection drops: the client must resume with Range.
      res.write(body.subarray(0, body.length / 2), () => res.socket?.destroy());
      return;
    }
    this.send(res, body);
  }

  /** The whole rest, or under 'cut-every' a slice of it before the connection drops (the HF bridge does this). */
  private send(res: http.ServerResponse, rest: Buffer): void {
    if (this.behaviour === 'cut-every' && rest.length > CUT_EVERY_BYTES) {
      res.write(rest.subarray(0, CUT_EVERY_BYTES), () => res.socket?.destroy());
      return;
    }
    res.end(rest);
  }
}

describe('models:list and models:pull (real HTTP server on 127.0.0.1)', () => {
  const model = randomBytes(3 * 1024 * 1024);
  const segmentation = randomBytes(256 * 1024);
  let work: string;
  let archive: Buffer;
  let server: ModelServer;
  let base: string;

  /** An extra catalogue (MODELS_EXTRA_CATALOGUE) pinning the synthetic files, as an operator would. */
  function writeCatalogue(overrides: { hex?: string; path?: string } = {}): string {
    const file = join(work, `catalogue-${randomBytes(3).toString('hex')}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify([
        {
          name: 'synthetic-e2e',
          kind: 'whisper-ggml',
          fileName: 'ggml-synthetic-e2e.bin',
          source: { origin: 'https://huggingface.co', path: overrides.path ?? MODEL_PATH },
          bytes: model.length,
          checksum: { algorithm: 'sha256', hex: overrides.hex ?? sha256(model) },
          licence: 'test-only',
          note: 'random bytes generated by the test',
        },
        {
          name: 'synthetic-segmentation',
          kind: 'sherpa-diarization-segmentation',
          fileName: 'synthetic-seg/model.onnx',
          source: { origin: 'https://github.com', path: ARCHIVE_PATH },
          bytes: archive.length,
          checksum: { algorithm: 'sha256', hex: sha256(archive) },
          archive: {
            format: 'tar.bz2',
            member: 'synthetic-seg/model.onnx',
            bytes: segmentation.length,
            checksum: { algorithm: 'sha256', hex: sha256(segmentation) },
          },
          licence: 'test-only',
          note: '',
        },
      ]),
    );
    return file;
  }

  function freshModelsDir(): string {
    return fs.mkdtempSync(join(work, 'models-'));
  }

  function env(modelsDir: string, catalogue: string, source = base): Record<string, string> {
    return {
      MODELS_DIR: modelsDir,
      MODELS_SOURCE_URL: source,
      MODELS_EXTRA_CATALOGUE: catalogue,
      MODELS_CONNECT_TIMEOUT_MS: '2000',
      MODELS_IDLE_TIMEOUT_MS: '5000',
      // The back-off between attempts that made no progress; the default (1 s, doubling) is for real links.
      MODELS_RETRY_DELAY_MS: '50',
    };
  }

  beforeAll(async () => {
    work = fs.mkdtempSync(join(tmpdir(), 'models-cli-'));
    const pack = join(work, 'pack');
    fs.mkdirSync(join(pack, 'synthetic-seg'), { recursive: true });
    fs.writeFileSync(join(pack, 'synthetic-seg', 'model.onnx'), segmentation);
    fs.writeFileSync(join(pack, 'synthetic-seg', 'LICENSE'), 'test\n');
    execFileSync('tar', ['-cjf', join(work, 'seg.tar.bz2'), '-C', pack, 'synthetic-seg']);
    archive = fs.readFileSync(join(work, 'seg.tar.bz2'));
    server = new ModelServer();
    server.add(MODEL_PATH, model);
    server.add(ARCHIVE_PATH, archive);
    base = await server.start();
  });

  beforeEach(() => server.reset());

  afterAll(async () => {
    await server.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('models:list shows the pinned catalogue and does no network I/O', async () => {
    const dir = freshModelsDir();
    const run = await cli(env(dir, writeCatalogue()), 'models:list');
    expect(run.code).toBe(0);
    const listed = oneJsonLine(run.stdout) as { models: Array<Record<string, unknown>> };
    const names = listed.models.map((entry) => entry.name);
    for (const name of ['tiny', 'tiny.en', 'base', 'base.en', 'small', 'small.en', 'medium', 'large-v3']) {
      expect(names).toContain(name);
    }
    expect(names).toEqual(
      expect.arrayContaining([
        'large-v3-turbo',
        'large-v3-turbo-q5_0',
        'large-v3-turbo-q8_0',
        'large-v3-turbo-german-q5_0',
        'pyannote-segmentation-3-0',
      ]),
    );
    expect(listed.models.find((entry) => entry.name === 'base')).toEqual({
      name: 'base',
      kind: 'whisper-ggml',
      file: 'ggml-base.bin',
      bytes: 147_951_465,
      size: '141 MiB',
      download: `${base}/ggerganov/whisper.cpp/resolve/${WHISPER_CPP_HF_REVISION}/ggml-base.bin`,
      licence: 'MIT',
      installed: false,
      pullable: true,
      note: expect.any(String),
    });
    expect(listed.models.every((entry) => entry.installed === false)).toBe(true);
    expect(server.requests).toEqual([]);
  });

  it('without MODELS_SOURCE_URL the official URLs are listed', async () => {
    const run = await cli({ MODELS_DIR: freshModelsDir() }, 'models:list');
    const listed = oneJsonLine(run.stdout) as { models: Array<Record<string, unknown>> };
    const byName = new Map(listed.models.map((entry) => [entry.name, entry.download]));
    expect(byName.get('large-v3-turbo-q5_0')).toBe(
      `https://huggingface.co/ggerganov/whisper.cpp/resolve/${WHISPER_CPP_HF_REVISION}/ggml-large-v3-turbo-q5_0.bin`,
    );
    // The revision is a commit, never a branch that can move under the pinned checksum.
    expect(WHISPER_CPP_HF_REVISION).toMatch(/^[0-9a-f]{40}$/);
    expect([...byName.values()].filter((url) => String(url).includes('/resolve/main/'))).toEqual([]);
    expect(byName.get('large-v3-turbo-german-q5_0')).toBe(
      'https://huggingface.co/MolyProduction/whisper-large-v3-turbo-german-ggml-q5_0/resolve/8ca650615c50e0d16a49de2bf707d2791242d829/ggml-large-v3-turbo-german-q5_0.bin',
    );
    expect(byName.get('3dspeaker-eres2net-base')).toBe(
      'https://github.com/k2-fsa/sherpa-onnx/releases/download/speaker-recongition-models/3dspeaker_speech_eres2net_base_sv_zh-cn_3dspeaker_16k.onnx',
    );
  });

  it('pulls a model through a redirect, verifies it, installs it atomically and lists it as installed', async () => {
    const dir = freshModelsDir();
    const catalogue = writeCatalogue();
    const run = await cli(env(dir, catalogue), 'models:pull', 'synthetic-e2e');
    expect(run.stderr).toBe(''); // not a terminal: no progress bar
    expect(run.code).toBe(0);
    expect(oneJsonLine(run.stdout)).toEqual({
      pulled: 'synthetic-e2e',
      path: join(dir, 'ggml-synthetic-e2e.bin'),
      bytes: model.length,
      alreadyInstalled: false,
      resumedFrom: 0,
      url: `${base}/${MODEL_PATH}`,
      checksum: `sha256:${sha256(model)}`,
    });
    expect(fs.readdirSync(dir)).toEqual(['ggml-synthetic-e2e.bin']);
    expect(fs.readFileSync(join(dir, 'ggml-synthetic-e2e.bin')).equals(model)).toBe(true);
    expect(server.requests.map((request) => request.url)).toEqual([`/${MODEL_PATH}`, `/cdn/${MODEL_PATH}`]);

    const listed = oneJsonLine((await cli(env(dir, catalogue), 'models:list')).stdout) as {
      models: Array<Record<string, unknown>>;
    };
    expect(listed.models.find((entry) => entry.name === 'synthetic-e2e')).toMatchObject({ installed: true });

    // Installed already: nothing is fetched again.
    server.requests.length = 0;
    const again = await cli(env(dir, catalogue), 'models:pull', 'synthetic-e2e');
    expect(oneJsonLine(again.stdout)).toMatchObject({ alreadyInstalled: true });
    expect(server.requests).toEqual([]);
  });

  it('resumes with Range after the server cuts the connection mid-body, and the whole file verifies', async () => {
    server.reset('cut-first');
    const dir = freshModelsDir();
    const run = await cli(env(dir, writeCatalogue()), 'models:pull', 'synthetic-e2e');
    expect(run.code).toBe(0);
    const body = server.requests.filter((request) => request.url.startsWith('/cdn/'));
    expect(body).toHaveLength(2);
    expect(body[0].range).toBeUndefined();
    expect(body[1].range).toMatch(/^bytes=[1-9]\d*-$/);
    expect(fs.readdirSync(dir)).toEqual(['ggml-synthetic-e2e.bin']);
    expect(fs.readFileSync(join(dir, 'ggml-synthetic-e2e.bin')).equals(model)).toBe(true);
  });

  it('a body cut again and again is resumed as long as each attempt adds bytes (more than 3 attempts)', async () => {
    server.reset('cut-every');
    const dir = freshModelsDir();
    const run = await cli(env(dir, writeCatalogue()), 'models:pull', 'synthetic-e2e');
    expect(oneJsonLine(run.code === 0 ? run.stdout : run.stderr)).toMatchObject({ pulled: 'synthetic-e2e' });
    const body = server.bodyRequests();
    expect(body).toHaveLength(Math.ceil(model.length / CUT_EVERY_BYTES));
    expect(body.length).toBeGreaterThan(3);
    expect(body.map((request) => request.range)).toEqual(
      body.map((_, index) => (index === 0 ? undefined : `bytes=${index * CUT_EVERY_BYTES}-`)),
    );
    expect(fs.readdirSync(dir)).toEqual(['ggml-synthetic-e2e.bin']);
    expect(fs.readFileSync(join(dir, 'ggml-synthetic-e2e.bin')).equals(model)).toBe(true);
  });

  it('a 429 keeps the partial, waits the Retry-After seconds, then resumes with Range', async () => {
    server.reset('rate-limit-first');
    const dir = freshModelsDir();
    const kept = 1_000_000;
    fs.writeFileSync(join(dir, 'ggml-synthetic-e2e.bin.partial'), model.subarray(0, kept));
    const run = await cli(env(dir, writeCatalogue()), 'models:pull', 'synthetic-e2e');
    expect(oneJsonLine(run.code === 0 ? run.stdout : run.stderr)).toMatchObject({
      pulled: 'synthetic-e2e',
      resumedFrom: kept,
    });
    const body = server.bodyRequests();
    expect(body.map((request) => request.range)).toEqual([`bytes=${kept}-`, `bytes=${kept}-`]);
    // Retry-After: 1 is a lower bound the server set, not a speed figure: the retry must not come sooner.
    expect(body[1].at - body[0].at).toBeGreaterThanOrEqual(1000);
    expect(fs.readFileSync(join(dir, 'ggml-synthetic-e2e.bin')).equals(model)).toBe(true);
  });

  it('a Retry-After given as an HTTP date is honoured too', async () => {
    server.reset('rate-limit-first');
    // Two seconds after the 429 is sent, as a date: whole seconds, so at least one second away.
    server.retryAfter = () => new Date(Date.now() + 2000).toUTCString();
    const dir = freshModelsDir();
    const run = await cli(env(dir, writeCatalogue()), 'models:pull', 'synthetic-e2e');
    expect(oneJsonLine(run.code === 0 ? run.stdout : run.stderr)).toMatchObject({ pulled: 'synthetic-e2e' });
    const body = server.bodyRequests();
    expect(body).toHaveLength(2);
    expect(body[1].at - body[0].at).toBeGreaterThanOrEqual(1000);
  });

  it('a 403 on the ranged request keeps the partial; given up after N attempts without progress', async () => {
    server.reset('forbid-range');
    const dir = freshModelsDir();
    const kept = 1_000_000;
    const partial = join(dir, 'ggml-synthetic-e2e.bin.partial');
    fs.writeFileSync(partial, model.subarray(0, kept));
    const run = await cli(
      { ...env(dir, writeCatalogue()), MODELS_MAX_ATTEMPTS_WITHOUT_PROGRESS: '3' },
      'models:pull',
      'synthetic-e2e',
    );
    expect(run.code).not.toBe(0);
    const failure = oneJsonLine(run.stderr);
    expect(failure.code).toBe('HTTP_ERROR');
    expect(failure.error).toContain('HTTP 403');
    expect(failure.error).toContain(`kept ${kept} bytes`);
    expect(server.bodyRequests().map((request) => request.range)).toEqual(Array(3).fill(`bytes=${kept}-`));
    expect(fs.readdirSync(dir)).toEqual(['ggml-synthetic-e2e.bin.partial']);
    expect(fs.readFileSync(partial).equals(model.subarray(0, kept))).toBe(true);
  });

  it('a partial file left by an earlier pull is resumed from its end', async () => {
    const dir = freshModelsDir();
    const kept = 1_000_000;
    fs.writeFileSync(join(dir, 'ggml-synthetic-e2e.bin.partial'), model.subarray(0, kept));
    const run = await cli(env(dir, writeCatalogue()), 'models:pull', 'synthetic-e2e');
    expect(run.code).toBe(0);
    expect(oneJsonLine(run.stdout)).toMatchObject({ resumedFrom: kept });
    expect(server.requests.find((request) => request.url.startsWith('/cdn/'))?.range).toBe(`bytes=${kept}-`);
    expect(fs.readFileSync(join(dir, 'ggml-synthetic-e2e.bin')).equals(model)).toBe(true);
  });

  it('a server that ignores Range sends the whole file again; the partial starts over and verifies', async () => {
    server.reset('ignore-range');
    const dir = freshModelsDir();
    fs.writeFileSync(join(dir, 'ggml-synthetic-e2e.bin.partial'), model.subarray(0, 500_000));
    const run = await cli(env(dir, writeCatalogue()), 'models:pull', 'synthetic-e2e');
    expect(run.code).toBe(0);
    expect(fs.readdirSync(dir)).toEqual(['ggml-synthetic-e2e.bin']);
    expect(fs.readFileSync(join(dir, 'ggml-synthetic-e2e.bin')).equals(model)).toBe(true);
  });

  it('a wrong checksum fails, names expected and actual, and leaves nothing behind', async () => {
    const dir = freshModelsDir();
    const wrong = 'f'.repeat(64);
    const run = await cli(env(dir, writeCatalogue({ hex: wrong })), 'models:pull', 'synthetic-e2e');
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    const failure = oneJsonLine(run.stderr);
    expect(failure.code).toBe('CHECKSUM_MISMATCH');
    expect(failure.error).toContain(`expected sha256 ${wrong}`);
    expect(failure.error).toContain(`got ${sha256(model)}`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a 404 fails clearly and leaves nothing behind, not even an older partial', async () => {
    const dir = freshModelsDir();
    const missing = 'ggerganov/whisper.cpp/resolve/main/ggml-not-there.bin';
    fs.writeFileSync(join(dir, 'ggml-synthetic-e2e.bin.partial'), model.subarray(0, 1000));
    const run = await cli(env(dir, writeCatalogue({ path: missing })), 'models:pull', 'synthetic-e2e');
    expect(run.code).not.toBe(0);
    const failure = oneJsonLine(run.stderr);
    expect(failure.code).toBe('NOT_FOUND');
    expect(failure.error).toBe(`not found: ${base}/${missing} answered HTTP 404`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a server that is gone fails fast with "cannot reach" and leaves nothing behind', async () => {
    const gone = http.createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((resolve) => gone.close(resolve));
    const dir = join(work, 'never-created');
    const run = await cli(
      env(dir, writeCatalogue(), `http://127.0.0.1:${port}`),
      'models:pull',
      'synthetic-e2e',
    );
    expect(run.code).not.toBe(0);
    const failure = oneJsonLine(run.stderr);
    expect(failure.code).toBe('UNREACHABLE');
    expect(failure.error).toMatch(new RegExp(`^cannot reach 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('a server gone after a cut keeps the bytes it had, so the next pull resumes', async () => {
    const dir = freshModelsDir();
    const partial = join(dir, 'ggml-synthetic-e2e.bin.partial');
    fs.writeFileSync(partial, model.subarray(0, 2000));
    const run = await cli(env(dir, writeCatalogue(), 'http://127.0.0.1:9'), 'models:pull', 'synthetic-e2e');
    expect(oneJsonLine(run.stderr)).toMatchObject({ code: 'UNREACHABLE' });
    expect(fs.readdirSync(dir)).toEqual(['ggml-synthetic-e2e.bin.partial']);
    expect(fs.statSync(partial).size).toBe(2000);
  });

  it('a source that accepts the connection but sends nothing is given up after the idle timeout', async () => {
    server.reset('stall');
    const dir = freshModelsDir();
    const run = await cli(
      { ...env(dir, writeCatalogue()), MODELS_IDLE_TIMEOUT_MS: '1000' },
      'models:pull',
      'synthetic-e2e',
    );
    expect(run.code).not.toBe(0);
    expect(oneJsonLine(run.stderr)).toEqual({
      code: 'UNREACHABLE',
      error: expect.stringContaining('nothing received for 1000 ms'),
    });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('an archive model is verified, its member verified and installed, and the archive removed', async () => {
    const dir = freshModelsDir();
    const run = await cli(env(dir, writeCatalogue()), 'models:pull', 'synthetic-segmentation');
    expect(run.code).toBe(0);
    expect(oneJsonLine(run.stdout)).toMatchObject({ path: join(dir, 'synthetic-seg', 'model.onnx') });
    expect(fs.readdirSync(dir)).toEqual(['synthetic-seg']);
    expect(fs.readdirSync(join(dir, 'synthetic-seg'))).toEqual(['model.onnx']);
    expect(fs.readFileSync(join(dir, 'synthetic-seg', 'model.onnx')).equals(segmentation)).toBe(true);
  });

  it('an archive that cannot be unpacked (no bzip2 on PATH) is kept, and the next pull unpacks it without downloading', async () => {
    // A PATH with tar but without bzip2, as on a slim Debian image.
    const bin = join(work, `bin-without-bzip2-${randomBytes(3).toString('hex')}`);
    fs.mkdirSync(bin);
    fs.symlinkSync(execFileSync('sh', ['-c', 'command -v tar']).toString().trim(), join(bin, 'tar'));
    const dir = freshModelsDir();
    const catalogue = writeCatalogue();
    const failed = await cli({ ...env(dir, catalogue), PATH: bin }, 'models:pull', 'synthetic-segmentation');
    expect(failed.code).not.toBe(0);
    const failure = oneJsonLine(failed.stderr);
    expect(failure.code).toBe('EXTRACT_FAILED');
    expect(failure.error).toContain('bzip2');
    expect(fs.readdirSync(dir)).toEqual(['synthetic-seg.tar.bz2']);
    expect(fs.readFileSync(join(dir, 'synthetic-seg.tar.bz2')).equals(archive)).toBe(true);

    server.reset();
    const again = await cli(env(dir, catalogue), 'models:pull', 'synthetic-segmentation');
    expect(oneJsonLine(again.code === 0 ? again.stdout : again.stderr)).toMatchObject({
      pulled: 'synthetic-segmentation',
      path: join(dir, 'synthetic-seg', 'model.onnx'),
    });
    expect(server.bodyRequests()).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual(['synthetic-seg']);
    expect(fs.readFileSync(join(dir, 'synthetic-seg', 'model.onnx')).equals(segmentation)).toBe(true);
  });

  describe('behind a proxy (HTTPS_PROXY / HTTP_PROXY / NO_PROXY)', () => {
    let proxy: ConnectProxy;
    let proxyUrl: string;
    let tlsServer: ModelServer;
    let tlsBase: string;
    let caFile: string;

    beforeAll(async () => {
      // A self-signed certificate for 127.0.0.1, trusted by the CLI through Node's NODE_EXTRA_CA_CERTS.
      const certificate = selfSignedCertificate();
      caFile = certificate.certPath;
      tlsServer = new ModelServer({
        key: fs.readFileSync(certificate.keyPath),
        cert: fs.readFileSync(certificate.certPath),
      });
      tlsServer.add(MODEL_PATH, model);
      tlsBase = await tlsServer.start();
      proxy = new ConnectProxy();
      proxyUrl = await proxy.start();
    });

    beforeEach(() => {
      proxy.reset();
      tlsServer.reset();
    });

    afterAll(async () => {
      await proxy.close();
      await tlsServer.close();
    });

    it('an https source is reached through a CONNECT tunnel of HTTPS_PROXY, TLS verified end to end', async () => {
      const dir = freshModelsDir();
      const run = await cli(
        { ...env(dir, writeCatalogue(), tlsBase), HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: caFile },
        'models:pull',
        'synthetic-e2e',
      );
      expect(oneJsonLine(run.code === 0 ? run.stdout : run.stderr)).toMatchObject({
        pulled: 'synthetic-e2e',
      });
      const authority = new URL(tlsBase).host;
      // One tunnel per request: the model path, then its redirect to the CDN path.
      expect(proxy.tunnels).toEqual([authority, authority]);
      expect(tlsServer.bodyRequests()).toHaveLength(1);
      expect(fs.readFileSync(join(dir, 'ggml-synthetic-e2e.bin')).equals(model)).toBe(true);
    });

    it('an http source is sent to HTTP_PROXY as absolute-URI requests (lower-case spelling too)', async () => {
      const dir = freshModelsDir();
      const run = await cli(
        { ...env(dir, writeCatalogue()), http_proxy: proxyUrl },
        'models:pull',
        'synthetic-e2e',
      );
      expect(oneJsonLine(run.code === 0 ? run.stdout : run.stderr)).toMatchObject({
        pulled: 'synthetic-e2e',
      });
      expect(proxy.forwarded).toEqual([`${base}/${MODEL_PATH}`, `${base}/cdn/${MODEL_PATH}`]);
      expect(fs.readFileSync(join(dir, 'ggml-synthetic-e2e.bin')).equals(model)).toBe(true);
    });

    it('an http source whose name only the proxy resolves is still pulled: the proxy, not the CLI, looks it up', async () => {
      // models.invalid resolves nowhere (RFC 6761) but in this proxy: a client that connects to the origin's name
      // itself (the proxy's port with the URL's host, as it did) fails with ENOTFOUND and the proxy sees nothing.
      const origin = new URL(base);
      const nameOnlyProxy = new ConnectProxy({ 'models.invalid': origin.hostname });
      const nameOnlyProxyUrl = await nameOnlyProxy.start();
      try {
        const dir = freshModelsDir();
        const unresolvable = `http://models.invalid:${origin.port}`;
        const run = await cli(
          { ...env(dir, writeCatalogue(), unresolvable), HTTP_PROXY: nameOnlyProxyUrl },
          'models:pull',
          'synthetic-e2e',
        );
        expect(oneJsonLine(run.code === 0 ? run.stdout : run.stderr)).toMatchObject({
          pulled: 'synthetic-e2e',
        });
        expect(nameOnlyProxy.forwarded[0]).toBe(`${unresolvable}/${MODEL_PATH}`);
        expect(fs.readFileSync(join(dir, 'ggml-synthetic-e2e.bin')).equals(model)).toBe(true);
      } finally {
        await nameOnlyProxy.close();
      }
    });

    it('a host in NO_PROXY is reached directly', async () => {
      const dir = freshModelsDir();
      const run = await cli(
        {
          ...env(dir, writeCatalogue(), tlsBase),
          HTTPS_PROXY: proxyUrl,
          HTTP_PROXY: proxyUrl,
          NO_PROXY: 'example.internal, 127.0.0.1',
          NODE_EXTRA_CA_CERTS: caFile,
        },
        'models:pull',
        'synthetic-e2e',
      );
      expect(oneJsonLine(run.code === 0 ? run.stdout : run.stderr)).toMatchObject({
        pulled: 'synthetic-e2e',
      });
      expect(proxy.tunnels).toEqual([]);
      expect(proxy.forwarded).toEqual([]);
      expect(tlsServer.bodyRequests()).toHaveLength(1);
    });

    it('a proxy that is down is named in the UNREACHABLE error', async () => {
      const gone = http.createServer();
      await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
      const port = (gone.address() as AddressInfo).port;
      await new Promise((resolve) => gone.close(resolve));
      const run = await cli(
        { ...env(freshModelsDir(), writeCatalogue(), tlsBase), HTTPS_PROXY: `http://127.0.0.1:${port}` },
        'models:pull',
        'synthetic-e2e',
      );
      expect(oneJsonLine(run.stderr)).toEqual({
        code: 'UNREACHABLE',
        error: expect.stringMatching(new RegExp(`through proxy 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`)),
      });
    });
  });

  it('an unknown model name fails with one JSON line', async () => {
    const run = await cli(env(freshModelsDir(), writeCatalogue()), 'models:pull', 'no-such-model');
    expect(run.code).not.toBe(0);
    expect(oneJsonLine(run.stderr)).toMatchObject({ code: 'UNKNOWN_MODEL' });
  });
});
