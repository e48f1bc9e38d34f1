import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { baseTestEnvironment } from './test-environment';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

/**
 * Ports handed to the processes a test starts are drawn from below the kernel's ephemeral range
 * (/proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by default): a port the kernel chose for `listen(0)` is
 * free again once closed, and the kernel may hand the same one to another process's `listen(0)` or outgoing
 * connection before ours binds it (CI's parallel lanes did: EADDRINUSE). Below that range only another test's
 * random pick can collide, so the pick is random and checked on the wildcard address the service listens on.
 */
const PORT_RANGE = { low: 20_000, high: 32_767 };

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = PORT_RANGE.low + Math.floor(Math.random() * (PORT_RANGE.high - PORT_RANGE.low + 1));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port found in ${PORT_RANGE.low}-${PORT_RANGE.high} after 50 attempts`);
}

/** Whether a listener can bind `port` on every address (as `node dist/main.js` does) right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}

/** A real `node dist/main.js` process (as operators run it), with the test environment plus overrides. */
export class ServiceProcess {
  private child: ChildProcess | null = null;
  output = '';

  /**
   * `options.cwd`: the working directory (where its `.env` is looked for); `options.unset`: variables of the
   * test environment the process does not get (so that a `.env` file can supply them).
   */
  constructor(
    readonly env: Record<string, string>,
    private readonly options: { cwd?: string; unset?: string[] } = {},
  ) {}

  async start(): Promise<this> {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...baseTestEnvironment(),
      LOG_LEVEL: 'log',
      ...this.env,
    };
    for (const name of this.options.unset ?? []) delete env[name];
    this.child = spawn('node', [MAIN], { env, cwd: this.options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    await this.waitForOutput(this.env.ROLE === 'worker' ? /Worker started/ : /Listening on port/, 30_000);
    return this;
  }

  async waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.output)) {
      if (this.child?.exitCode !== null) throw new Error(`service exited early:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Started and not exited (nor killed). */
  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Sends `signal` (SIGTERM: what an orchestrator sends) and resolves with how the process ended; SIGKILL and
   * a rejection if it is still running after `timeoutMs`.
   */
  async terminate(
    signal: NodeJS.Signals = 'SIGTERM',
    timeoutMs = 60_000,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = this.child;
    if (!child) throw new Error('not started');
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`already exited:\n${this.output}`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`still running ${timeoutMs} ms after ${signal}:\n${this.output}`));
      }, timeoutMs);
      child.once('exit', (code, exitSignal) => {
        clearTimeout(timer);
        resolve({ code, signal: exitSignal });
      });
      child.kill(signal);
    });
  }

  /** SIGKILL: no shutdown hooks run, as when a machine dies. */
  kill(): void {
    this.child?.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}
