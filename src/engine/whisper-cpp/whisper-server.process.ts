import { ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { constants as osConstants } from 'node:os';
import { abortReason } from '../abort.util';
import { EngineError } from '../engine.types';

/** Enough of whisper-server's log to explain a failure without flooding the job's errorMessage. */
const LOG_TAIL_CHARS = 4096;
/** Kept in memory: the model-loading log alone is a few kB. */
const LOG_BUFFER_CHARS = 32 * 1024;
/** What whisper.cpp logs when whisper_init fails (its exit code 3 is shared with other start-up errors). */
const MODEL_LOAD_FAILED = 'failed to initialize whisper context';
/** whisper-server takes the port as given (no port 0), so a port picked free may be taken in between. */
const PORT_TAKEN = "couldn't bind to server socket";
const PORT_ATTEMPTS = 3;
const HEALTH_POLL_MS = 25;

/**
 * Runs whisper-server under a small `sh` guard. The engine child that owns the server is killed with SIGKILL
 * on abort and timeout (engine-runner.ts), which runs no cleanup; a plain child would then keep its model in
 * memory forever. The guard holds our stdin pipe and kills the server when that pipe reaches EOF: when we end
 * it (kill()) and when the kernel closes it because our process died, however it died. It exits with the
 * server's status. `$0` is the server binary, `$@` its arguments; the server's stdout (request banners,
 * block-buffered) goes to /dev/null, its stderr is the guard's.
 */
const GUARD_SCRIPT = [
  'exec 3<&0',
  '"$0" "$@" </dev/null >/dev/null 3<&- &',
  'server=$!',
  // Background lists read /dev/null unless redirected explicitly: read our pipe through fd 3.
  '{ while read -r _; do :; done; kill -KILL "$server" 2>/dev/null; } <&3 &',
  'watcher=$!',
  'exec 3<&-',
  'wait "$server"',
  'status=$?',
  'kill -KILL "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** The command that runs `binaryPath args` under the guard; its stdin must be a pipe we hold open. */
export function guardedServerCommand(binaryPath: string, args: readonly string[]): [string, string[]] {
  return ['sh', ['-c', GUARD_SCRIPT, binaryPath, ...args]];
}

export interface WhisperServerOptions {
  binaryPath: string;
  modelPath: string;
  threads: number;
  /** Appended last, so they override the defaults below (whisper-server keeps the last value of a flag). */
  extraArgs?: readonly string[];
}

/** The answer to one /inference request. */
export interface WhisperServerAnswer {
  status: number;
  body: string;
  /** What the server logged while it handled the request (whisper.cpp's reason for a 500, say). */
  log: string;
}

/** One whisper-server process with its model loaded, on a loopback port. Serves one request at a time. */
export class WhisperServerProcess {
  private log = '';
  /** Characters ever written to `log`, so a request can find the part logged since it began. */
  private logged = 0;
  private exitStatus: string | null = null;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    private readonly modelPath: string,
  ) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (data: string) => {
      this.log = (this.log + data).slice(-LOG_BUFFER_CHARS);
      this.logged += data.length;
    });
    // The guard's stdin fails with EPIPE if it died first; its exit is what we report.
    child.stdin?.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.exitStatus = describeExit(code, signal);
        resolve();
      });
      child.once('error', (err) => {
        this.exitStatus = `could not be started (${err.message})`;
        resolve();
      });
    });
  }

  /**
   * Starts a server on a free loopback port and resolves once it answers /health (it binds only after the
   * model has loaded). Rejects with ENGINE_FAILED naming the model when whisper.cpp cannot load it, or with
   * the abort reason when `signal` fires first (the process is killed either way).
   */
  static async start(options: WhisperServerOptions, signal: AbortSignal): Promise<WhisperServerProcess> {
    let lastLog = '';
    for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
      const port = await freeLoopbackPort();
      const server = WhisperServerProcess.spawn(options, port);
      try {
        await server.waitUntilReady(signal);
        return server;
      } catch (err) {
        await server.kill();
        if (signal.aborted) throw abortReason(signal);
        if (!(err instanceof PortTakenError)) throw err;
        lastLog = server.logSince(0);
      }
    }
    throw new EngineError(
      'ENGINE_FAILED',
      `whisper-server found no free loopback port in ${PORT_ATTEMPTS} attempts: ${logTail(lastLog)}`,
    );
  }

  private static spawn(options: WhisperServerOptions, port: number): WhisperServerProcess {
    const args = [
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '-m',
      options.modelPath,
      '-t',
      String(options.threads),
      // Requests always name their language; this only matters if one ever does not.
      '-l',
      'auto',
      // whisper-cli's decoding defaults (beam search of 5, best of 5), which the service used before the
      // server; whisper-server's own are greedy with best-of 2.
      '-bs',
      '5',
      '-bo',
      '5',
      // Skips a second language-detection pass per request that verbose_json runs otherwise; the language
      // whisper_full detected is still reported.
      '-nlp',
      ...(options.extraArgs ?? []),
    ];
    const [command, guardArgs] = guardedServerCommand(options.binaryPath, args);
    const child = spawn(command, guardArgs, { stdio: ['pipe', 'ignore', 'pipe'] });
    return new WhisperServerProcess(child, `http://127.0.0.1:${port}`, options.modelPath);
  }

  get running(): boolean {
    return this.exitStatus === null;
  }

  /** How the process ended, e.g. "exited with code 3", or null while it runs. */
  get status(): string | null {
    return this.exitStatus;
  }

  /** Stops the server at once (SIGKILL through the guard) and waits until it is gone. */
  async kill(): Promise<void> {
    if (this.exitStatus === null) this.child.stdin?.end();
    await this.exited;
  }

  /** Resolves when the process has ended, whoever ended it. */
  whenExited(): Promise<void> {
    return this.exited;
  }

  /**
   * Posts a multipart form to /inference. The caller serialises requests (the server would anyway). Each
   * request opens its own connection (agent: false): whisper-server drops idle keep-alive connections after
   * 5 s, and a pooled connection reused at that moment fails with EPIPE; a loopback connect costs nothing
   * next to a chunk's inference.
   */
  async inference(form: FormData, signal: AbortSignal): Promise<WhisperServerAnswer> {
    const since = this.logged;
    // Response serialises the form with its multipart boundary.
    const encoded = new Response(form);
    const payload = Buffer.from(await encoded.arrayBuffer());
    const contentType = encoded.headers.get('content-type') ?? 'multipart/form-data';
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${this.baseUrl}/inference`,
        {
          method: 'POST',
          agent: false,
          signal,
          headers: { 'content-type': contentType, 'content-length': payload.length },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => parts.push(part));
          res.on('error', reject);
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }),
          );
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
    return { status, body, log: this.logSince(since) };
  }

  /** The log written since `logged` was `since` (or all that is still kept). */
  logSince(since: number): string {
    const available = this.logged - since;
    return available >= this.log.length ? this.log : this.log.slice(this.log.length - available);
  }

  private async waitUntilReady(signal: AbortSignal): Promise<void> {
    let exited = false;
    void this.exited.then(() => (exited = true));
    while (!exited) {
      if (signal.aborted) throw abortReason(signal);
      if (await this.answersHealth(signal)) return;
      await Promise.race([new Promise((r) => setTimeout(r, HEALTH_POLL_MS)), this.exited]);
    }
    if (this.log.includes(PORT_TAKEN)) throw new PortTakenError();
    // Killed from outside (an OOM kill, say): another start may well work.
    const permanent = !(this.exitStatus ?? '').startsWith('was killed');
    if (this.log.includes(MODEL_LOAD_FAILED)) {
      throw new WhisperServerStartError(
        `whisper.cpp could not load model ${this.modelPath} (not a ggml Whisper model, or corrupt): ${logTail(this.log)}`,
        permanent,
      );
    }
    throw new WhisperServerStartError(`whisper-server ${this.exitStatus}: ${logTail(this.log)}`, permanent);
  }

  /** Ready means our own server answers: another program could have taken the port. */
  private async answersHealth(signal: AbortSignal): Promise<boolean> {
    try {
      const res = await fetch(`${this.baseUrl}/health`, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(1000)]),
      });
      await res.arrayBuffer();
      return res.ok && res.headers.get('server') === 'whisper.cpp' && this.running;
    } catch {
      return false; // not listening yet
    }
  }
}

class PortTakenError extends Error {}

/** A server that ended before it answered. `permanent`: it exited by itself, so a retry would fail alike. */
export class WhisperServerStartError extends EngineError {
  constructor(
    explanation: string,
    readonly permanent: boolean,
  ) {
    super('ENGINE_FAILED', explanation);
  }
}

/** The guard exits with the server's status, which sh reports as 128 + N for a server killed by signal N. */
function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (code === null) return `was killed by ${signal}`;
  const bySignal = Object.entries(osConstants.signals).find(([, n]) => code === 128 + n)?.[0];
  return bySignal ? `was killed by ${bySignal}` : `exited with code ${code}`;
}

/** A port the kernel considers free right now (see PORT_TAKEN for the race). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The last lines of whisper.cpp's log that say what went wrong, without its usage text. */
export function logTail(log: string): string {
  const usageAt = log.indexOf('\nusage:');
  const text = (usageAt >= 0 ? log.slice(0, usageAt) : log).trim();
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const tail = lines.slice(-6).join(' | ');
  return (tail.length > LOG_TAIL_CHARS ? tail.slice(-LOG_TAIL_CHARS) : tail) || '(no output)';
}
