import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './eventually';
import { freePort } from './service-process';

/**
 * Redis servers and sentinels of a test's own (Debian's redis-server and redis-sentinel), on free loopback
 * ports in a temporary directory, stopped at the end: the machine's shared Redis on 6379 is never touched.
 */
export class RedisServerProcess {
  private child: ChildProcess | null = null;
  output = '';

  private constructor(
    readonly name: string,
    readonly port: number,
    private readonly command: string,
    private readonly args: string[],
  ) {}

  /** `redis-server` with `args` after the test's defaults (no persistence, loopback only). */
  static async server(name: string, dir: string, args: string[], port?: number): Promise<RedisServerProcess> {
    const chosen = port ?? (await freePort());
    const server = new RedisServerProcess(name, chosen, 'redis-server', [
      '--bind',
      '127.0.0.1',
      '--port',
      String(chosen),
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--logfile',
      '',
      ...args,
    ]);
    return server.start();
  }

  /** `redis-sentinel` with a configuration file of its own (sentinels rewrite it). */
  static async sentinel(name: string, dir: string, lines: string[]): Promise<RedisServerProcess> {
    const port = await freePort();
    const file = join(dir, `${name}.conf`);
    writeFileSync(file, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, ...lines, ''].join('\n'));
    return new RedisServerProcess(name, port, 'redis-sentinel', [file]).start();
  }

  private async start(): Promise<this> {
    const child = spawn(this.command, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    await eventually(
      `${this.name} listening on ${this.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${this.name} exited:\n${this.output}`);
        return /Ready to accept connections|Sentinel ID is/.test(this.output);
      },
      10_000,
      50,
    );
    return this;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILL, as when the machine under it dies: no shutdown, no last save; resolves once it is gone. */
  async kill(): Promise<void> {
    await this.end('SIGKILL');
  }

  /**
   * SIGSTOP, as when its host hangs or is cut off by the network: connections to it stay open and nothing
   * answers on them.
   */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  async stop(): Promise<void> {
    await this.end('SIGTERM');
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    child.kill('SIGCONT'); // a frozen process handles its signal only once it runs again
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill(signal);
    });
  }
}

export interface SentinelSetOptions {
  masterName: string;
  /** requirepass of the master and the replica (the replica's masterauth too). */
  password: string;
  /** requirepass of the sentinels (and what they use to talk to each other). */
  sentinelPassword: string;
  /** How long a master may be silent before a sentinel thinks it down. */
  downAfterMs: number;
}

/**
 * A master, a replica and three sentinels (quorum 2) on loopback, as an operator runs Redis with automatic
 * failover. `env` is what a service process needs to use it.
 */
export class SentinelSet {
  readonly sentinels: RedisServerProcess[] = [];
  private constructor(
    readonly options: SentinelSetOptions,
    readonly dir: string,
    readonly master: RedisServerProcess,
    readonly replica: RedisServerProcess,
  ) {}

  static async start(options: SentinelSetOptions): Promise<SentinelSet> {
    const dir = mkdtempSync(join(tmpdir(), 'stt-sentinel-'));
    const auth = ['--requirepass', options.password, '--masterauth', options.password];
    const sync = ['--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0'];
    const master = await RedisServerProcess.server('redis-master', dir, [...auth, ...sync]);
    const replica = await RedisServerProcess.server('redis-replica', dir, [
      ...auth,
      ...sync,
      '--replicaof',
      '127.0.0.1',
      String(master.port),
    ]);
    const set = new SentinelSet(options, dir, master, replica);
    try {
      // The replica is in sync before the sentinels start: their first INFO of the master lists it.
      await eventually(
        'the replica in sync with the master',
        async () => /master_link_status:up/.test(await set.command(replica.port, options.password, 'INFO')),
        10_000,
        50,
      );
      const lines = [
        `sentinel monitor ${options.masterName} 127.0.0.1 ${master.port} 2`,
        `sentinel down-after-milliseconds ${options.masterName} ${options.downAfterMs}`,
        `sentinel failover-timeout ${options.masterName} 5000`,
        `sentinel parallel-syncs ${options.masterName} 1`,
        `sentinel auth-pass ${options.masterName} ${options.password}`,
        `requirepass ${options.sentinelPassword}`,
        `sentinel sentinel-pass ${options.sentinelPassword}`,
      ];
      for (const name of ['sentinel-1', 'sentinel-2', 'sentinel-3']) {
        set.sentinels.push(await RedisServerProcess.sentinel(name, dir, lines));
      }
      // Every sentinel knows the replica and the two others: a failover can be agreed on.
      await eventually(
        'three sentinels that know each other and the replica',
        async () => {
          for (const sentinel of set.sentinels) {
            const answer = await set.command(sentinel.port, options.sentinelPassword, 'SENTINEL', [
              'CKQUORUM',
              options.masterName,
            ]);
            if (!answer.includes('3 usable Sentinels')) return false;
            const replicas = await set.command(sentinel.port, options.sentinelPassword, 'SENTINEL', [
              'REPLICAS',
              options.masterName,
            ]);
            if (!replicas.includes(String(replica.port))) return false;
          }
          return true;
        },
        20_000,
        200,
      );
    } catch (error) {
      await set.stop();
      throw error;
    }
    return set;
  }

  /** The environment of a service process using this set (its REDIS_URL's host is not used). */
  env(): Record<string, string> {
    return {
      REDIS_URL: `redis://:${this.options.password}@${this.options.masterName}/0`,
      REDIS_SENTINELS: this.sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(','),
      REDIS_SENTINEL_MASTER: this.options.masterName,
      REDIS_SENTINEL_PASSWORD: this.options.sentinelPassword,
    };
  }

  /** The master's port as the sentinels that answer report it (agreed by every one of them), or null. */
  async currentMasterPort(): Promise<number | null> {
    const ports = new Set<string>();
    for (const sentinel of this.sentinels.filter((candidate) => candidate.running)) {
      const answer = await this.command(sentinel.port, this.options.sentinelPassword, 'SENTINEL', [
        'GET-MASTER-ADDR-BY-NAME',
        this.options.masterName,
      ]);
      ports.add(answer.trim().split('\n').pop() ?? '');
    }
    return ports.size === 1 ? Number([...ports][0]) : null;
  }

  /** One command through redis-cli (the test's own view, independent of the client library under test). */
  async command(port: number, password: string, name: string, args: string[] = []): Promise<string> {
    const { stdout } = await promisify(execFile)(
      'redis-cli',
      ['-h', '127.0.0.1', '-p', String(port), '--no-auth-warning', '-a', password, name, ...args],
      { encoding: 'utf8', timeout: 5_000 },
    );
    return stdout;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sentinels, this.replica, this.master].map((server) => server.stop()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
