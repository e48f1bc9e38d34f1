/**
 * The one way the benchmarks start the service: a throwaway installation with control over the processes —
 * one or several `node dist/main.js` processes with their own ROLE (api / worker / all) and environment, their
 * process ids (for /proc memory readings) and their log files. bench/run-service.ts is its command-line entry
 * for the benches that take `--service URL --api-key KEY` (wer, der-service).
 *
 * What it sets up: a private copy of dist/ (a concurrent `nest build` in the shared working tree cannot pull it
 * away), a new PostgreSQL database stt_bench_<random> (migrated with `node dist/cli.js migrate`), its own
 * REDIS_PREFIX, a temporary STORAGE_DIR and a workspace with an API key. teardown() stops every process it
 * started (by pid), drops the database, deletes the Redis keys under the prefix and removes the folders.
 *
 * Environment (optional): BENCH_POSTGRES_URL (server URL without database, default postgres://postgres@127.0.0.1:5432),
 * REDIS_URL (default redis://127.0.0.1:6379/0), BENCH_KEEP_LOG=1 keeps the service logs (a caller can also set
 * sandbox.keepLogs, e.g. when its bench failed).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';

export const POSTGRES_URL = (process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(
  /\/+$/,
  '',
);
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';

export function repositoryRoot(): string {
  let directory = __dirname;
  while (!fs.existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no package.json above ${__dirname}`);
    directory = parent;
  }
  return directory;
}

export const ROOT = repositoryRoot();

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function findApiKey(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'apiKey' && typeof inner === 'string') return inner;
    const found = findApiKey(inner);
    if (found) return found;
  }
  return undefined;
}

function findWorkspaceId(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  for (const key of ['workspaceId', 'workspace_id']) {
    if (typeof record[key] === 'string') return record[key];
  }
  if (record.workspace && typeof record.workspace === 'object') {
    const id = (record.workspace as Record<string, unknown>).id;
    if (typeof id === 'string') return id;
  }
  for (const inner of Object.values(record)) {
    const found = findWorkspaceId(inner);
    if (found) return found;
  }
  return undefined;
}

export type Role = 'api' | 'worker' | 'all';

export interface ServiceProcessHandle {
  role: Role;
  pid: number;
  child: ChildProcess;
  logPath: string;
  /** Set for api/all processes. */
  url?: string;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export class Sandbox {
  readonly id = randomBytes(6).toString('hex');
  readonly database = `stt_bench_${this.id}`;
  readonly prefix = `stt-bench-${this.id}`;
  readonly snapshot: string;
  readonly storage: string;
  readonly env: NodeJS.ProcessEnv;
  apiKey = '';
  workspaceId = '';
  /** Keep the service logs after teardown (their paths are printed). */
  keepLogs = process.env.BENCH_KEEP_LOG === '1';
  private readonly processes: ServiceProcessHandle[] = [];
  private readonly logs: string[] = [];

  private constructor(extraEnv: Record<string, string>) {
    for (const built of ['main.js', 'cli.js']) {
      if (!fs.existsSync(path.join(ROOT, 'dist', built)))
        throw new Error(`dist/${built} missing: npm run build first`);
    }
    this.snapshot = fs.mkdtempSync(path.join(os.tmpdir(), `stt-bench-app-${this.id}-`));
    fs.cpSync(path.join(ROOT, 'dist'), path.join(this.snapshot, 'dist'), { recursive: true });
    for (const entry of fs.readdirSync(ROOT)) {
      if (entry === 'dist' || entry === '.git') continue;
      fs.symlinkSync(path.join(ROOT, entry), path.join(this.snapshot, entry));
    }
    for (const built of ['main.js', 'cli.js', 'engine/runner/engine-child.js']) {
      if (!fs.existsSync(path.join(this.snapshot, 'dist', built))) {
        fs.rmSync(this.snapshot, { recursive: true, force: true });
        throw new Error(`dist/${built} missing from the copy (a rebuild in progress?); run again`);
      }
    }
    this.storage = fs.mkdtempSync(path.join(os.tmpdir(), `stt-bench-storage-${this.id}-`));
    this.env = {
      ...process.env,
      DATABASE_URL: `${POSTGRES_URL}/${this.database}`,
      REDIS_URL,
      REDIS_PREFIX: this.prefix,
      STORAGE_DIR: this.storage,
      JWT_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'log',
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: '100000000',
      RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000000',
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '100000000',
      JOB_ATTEMPTS: '1',
      ...extraEnv,
    };
  }

  /** Creates the database, migrates it and creates a workspace with money on it. */
  static async create(extraEnv: Record<string, string> = {}): Promise<Sandbox> {
    const sandbox = new Sandbox(extraEnv);
    console.error(
      `[sandbox] database ${sandbox.database}, REDIS_PREFIX ${sandbox.prefix}, storage ${sandbox.storage}`,
    );
    try {
      await sandbox.cli(['migrate']);
      const output = await sandbox.cli([
        'workspace:create',
        '--name',
        'Bench',
        '--balance',
        '100000',
        '--free',
        '0',
      ]);
      const parsed = JSON.parse(output.slice(output.indexOf('{'))) as unknown;
      const apiKey = findApiKey(parsed);
      if (!apiKey) throw new Error(`workspace:create printed no apiKey: ${output}`);
      sandbox.apiKey = apiKey;
      sandbox.workspaceId = findWorkspaceId(parsed) ?? '';
    } catch (error) {
      await sandbox.teardown();
      throw error;
    }
    return sandbox;
  }

  cli(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        [path.join(this.snapshot, 'dist', 'cli.js'), ...args],
        { env: this.env, cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (error)
            reject(new Error(`dist/cli.js ${args[0]} failed: ${error.message}\n${stdout}\n${stderr}`));
          else resolve(stdout);
        },
      );
    });
  }

  /** Starts `node [nodeArgs] dist/main.js` with the role (nodeArgs e.g. --cpu-prof); resolves when it is ready (health for api/all, log line for worker). */
  async start(
    role: Role,
    extraEnv: Record<string, string> = {},
    nodeArgs: string[] = [],
  ): Promise<ServiceProcessHandle> {
    const port = role === 'worker' ? undefined : await freePort();
    const logPath = path.join(os.tmpdir(), `stt-bench-${this.id}-${role}-${this.processes.length}.log`);
    this.logs.push(logPath);
    const log = fs.openSync(logPath, 'w');
    const child = spawn(process.execPath, [...nodeArgs, path.join(this.snapshot, 'dist', 'main.js')], {
      // A worker is ready when it logs "Worker started", which needs LOG_LEVEL=log (or more).
      env: {
        ...this.env,
        ROLE: role,
        ...(port ? { PORT: String(port) } : { LOG_LEVEL: 'log' }),
        ...extraEnv,
      },
      cwd: ROOT,
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    if (child.pid === undefined) throw new Error('could not start node dist/main.js');
    const handle: ServiceProcessHandle = {
      role,
      pid: child.pid,
      child,
      logPath,
      url: port ? `http://127.0.0.1:${port}` : undefined,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited(child);
        clearTimeout(timer);
      },
    };
    this.processes.push(handle);
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${role} process exited during start-up:\n${fs.readFileSync(logPath, 'utf8')}`);
      if (Date.now() > deadline) throw new Error(`${role} process not ready within 90 s; log ${logPath}`);
      if (handle.url) {
        const ok = await fetch(`${handle.url}/v1/health`).then(
          (response) => response.ok,
          () => false,
        );
        if (ok) break;
      } else if (/Worker started/.test(fs.readFileSync(logPath, 'utf8'))) break;
      await sleep(200);
    }
    console.error(`[sandbox] ${role} pid ${handle.pid}${handle.url ? ` at ${handle.url}` : ''}`);
    return handle;
  }

  async query<T extends Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: `${POSTGRES_URL}/${this.database}` });
    await client.connect();
    try {
      return (await client.query<T>(sql, values)).rows;
    } finally {
      await client.end();
    }
  }

  async teardown(): Promise<void> {
    const failures: string[] = [];
    for (const handle of this.processes) await handle.stop();
    const admin = new Client({ connectionString: `${POSTGRES_URL}/postgres` });
    try {
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${this.database}" WITH (FORCE)`);
    } catch (error) {
      failures.push(`drop ${this.database}: ${(error as Error).message}`);
    } finally {
      await admin.end().catch(() => undefined);
    }
    let deleted = 0;
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });
    try {
      await redis.connect();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) deleted += await redis.del(...keys);
      } while (cursor !== '0');
    } catch (error) {
      failures.push(`Redis keys ${this.prefix}*: ${(error as Error).message}`);
    } finally {
      redis.disconnect();
    }
    fs.rmSync(this.storage, { recursive: true, force: true });
    fs.rmSync(this.snapshot, { recursive: true, force: true });
    if (this.keepLogs) console.error(`[sandbox] logs kept: ${this.logs.join(' ')}`);
    else this.logs.forEach((log) => fs.rmSync(log, { force: true }));
    console.error(
      `[sandbox] torn down: ${this.processes.length} process(es) stopped, database ${this.database} dropped, ` +
        `${deleted} Redis keys deleted, storage removed` +
        (failures.length > 0 ? `; FAILED: ${failures.join('; ')}` : ''),
    );
  }
}

/** Runs body against a fresh sandbox and always tears it down (also on Ctrl-C). */
export async function withSandbox<T>(
  extraEnv: Record<string, string>,
  body: (sandbox: Sandbox) => Promise<T>,
): Promise<T> {
  const sandbox = await Sandbox.create(extraEnv);
  let interrupted = false;
  const onSignal = (): void => {
    if (interrupted) return;
    interrupted = true;
    void sandbox.teardown().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await body(sandbox);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (!interrupted) await sandbox.teardown();
  }
}

/**
 * Runs `node <script> [args]` with this terminal (stdio inherited) from the repository root, passing Ctrl-C and
 * SIGTERM on to it; resolves with its exit code (1 when a signal ended it).
 */
export function runNodeScript(script: string, args: readonly string[] = []): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: 'inherit', cwd: ROOT });
    const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
    process.once('SIGINT', forward);
    process.once('SIGTERM', forward);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}
