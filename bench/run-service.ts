/**
 * Runs a bench against a throwaway instance of the service and tears it down afterwards.
 *
 *   npm run build && npx tsc -p tsconfig.bench.json
 *   node dist-bench/bench/run-service.js wer [bench arguments...]
 *   node dist-bench/bench/run-service.js der-service
 *
 * What it does: copies dist/ to a temporary folder (so a concurrent rebuild of the working tree cannot pull it
 * away from under the running service), picks a free port, a new PostgreSQL database (stt_bench_<random>), its own REDIS_PREFIX and a
 * temporary STORAGE_DIR; runs `node dist/cli.js migrate` and `workspace:create`; starts `node dist/main.js`
 * (ROLE=all: API and worker in one process); waits for /v1/health; runs
 * `node dist-bench/bench/<name>.js --service <url> --api-key <key> [arguments]`; then stops the service (by its
 * process id), drops the database, deletes the Redis keys under the prefix and removes the storage folder.
 *
 * Environment (all optional): BENCH_POSTGRES_URL (server URL without a database name, default
 * postgres://postgres@127.0.0.1:5432), REDIS_URL (default redis://127.0.0.1:6379/0), BENCH_KEEP_LOG=1 keeps the
 * service log (its path is printed).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';

const POSTGRES_URL = (process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(
  /\/+$/,
  '',
);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';

function repositoryRoot(): string {
  let directory = __dirname;
  while (!fs.existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no package.json above ${__dirname}`);
    directory = parent;
  }
  return directory;
}

const ROOT = repositoryRoot();

function freePort(): Promise<number> {
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

function runCli(app: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(app, 'dist', 'cli.js'), ...args],
      { env, cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`dist/cli.js ${args[0]} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/** The API key from workspace:create's JSON output (the first string property named apiKey, at any depth). */
function findApiKey(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'apiKey' && typeof inner === 'string') return inner;
    const found = findApiKey(inner);
    if (found) return found;
  }
  return undefined;
}

function parseApiKey(output: string): string {
  const start = output.indexOf('{');
  if (start < 0) throw new Error(`workspace:create printed no JSON: ${output}`);
  const key = findApiKey(JSON.parse(output.slice(start)) as unknown);
  if (!key) throw new Error(`workspace:create printed no apiKey: ${output}`);
  return key;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function waitForHealth(url: string, service: ChildProcess, logPath: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (service.exitCode !== null || service.signalCode !== null) {
      throw new Error(`the service exited during start-up; log:\n${fs.readFileSync(logPath, 'utf8')}`);
    }
    try {
      const response = await fetch(`${url}/v1/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the service did not answer /v1/health within 90 s; log: ${logPath}`);
}

async function stopService(service: ChildProcess): Promise<void> {
  if (service.exitCode !== null || service.signalCode !== null) return;
  service.kill('SIGTERM');
  const timer = setTimeout(() => service.kill('SIGKILL'), 15_000);
  await exited(service);
  clearTimeout(timer);
}

async function dropDatabase(name: string): Promise<void> {
  const client = new Client({ connectionString: `${POSTGRES_URL}/postgres` });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

async function deleteRedisKeys(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

function runBench(script: string, args: string[]): Promise<number> {
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

async function main(): Promise<number> {
  const [benchName, ...benchArgs] = process.argv.slice(2);
  if (!benchName) {
    console.error('usage: node dist-bench/bench/run-service.js <bench name, e.g. wer> [bench arguments...]');
    return 2;
  }
  const benchScript = path.join(__dirname, `${benchName}.js`);
  if (!fs.existsSync(benchScript))
    throw new Error(`${benchScript} not found (npx tsc -p tsconfig.bench.json?)`);
  for (const built of ['main.js', 'cli.js']) {
    if (!fs.existsSync(path.join(ROOT, 'dist', built)))
      throw new Error(`dist/${built} missing: npm run build first`);
  }

  const id = randomBytes(6).toString('hex');
  // A private copy of dist/: others rebuilding the shared working tree (nest build deletes dist/ first) would
  // otherwise make the service's engine child fail with MODULE_NOT_FOUND in the middle of the bench.
  const snapshot = fs.mkdtempSync(path.join(os.tmpdir(), `stt-bench-app-${id}-`));
  fs.cpSync(path.join(ROOT, 'dist'), path.join(snapshot, 'dist'), { recursive: true });
  // Everything else the service reads next to dist/ (node_modules, openapi.yaml, .tools, ...) is linked, not copied.
  for (const entry of fs.readdirSync(ROOT)) {
    if (entry === 'dist' || entry === '.git') continue;
    fs.symlinkSync(path.join(ROOT, entry), path.join(snapshot, entry));
  }
  for (const built of ['main.js', 'cli.js', 'engine/runner/engine-child.js']) {
    if (!fs.existsSync(path.join(snapshot, 'dist', built))) {
      fs.rmSync(snapshot, { recursive: true, force: true });
      throw new Error(`dist/${built} missing from the copy (a rebuild in progress?); run again`);
    }
  }
  const database = `stt_bench_${id}`;
  const prefix = `stt-bench-${id}`;
  const storage = fs.mkdtempSync(path.join(os.tmpdir(), `stt-bench-storage-${id}-`));
  const logPath = path.join(os.tmpdir(), `stt-bench-service-${id}.log`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ROLE: 'all',
    PORT: String(port),
    DATABASE_URL: `${POSTGRES_URL}/${database}`,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    STORAGE_DIR: storage,
    JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    // The bench polls job status; the default 100 requests per minute would throttle it.
    RATE_LIMIT_AUTHENTICATED_PER_MINUTE: '1000000',
    JOB_ATTEMPTS: '1',
  };
  console.error(
    `[run-service] database ${database}, REDIS_PREFIX ${prefix}, port ${port}, storage ${storage}`,
  );

  let service: ChildProcess | undefined;
  let status = 1;
  try {
    await runCli(snapshot, ['migrate'], env);
    const apiKey = parseApiKey(
      await runCli(snapshot, ['workspace:create', '--name', 'Bench', '--balance', '100', '--free', '0'], env),
    );
    const log = fs.openSync(logPath, 'w');
    service = spawn(process.execPath, [path.join(snapshot, 'dist', 'main.js')], {
      env,
      cwd: ROOT,
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    console.error(`[run-service] service pid ${service.pid}, log ${logPath}`);
    await waitForHealth(url, service, logPath);
    status = await runBench(benchScript, ['--service', url, '--api-key', apiKey, ...benchArgs]);
  } finally {
    if (service) await stopService(service);
    const failures: string[] = [];
    await dropDatabase(database).catch((error: Error) => failures.push(`drop ${database}: ${error.message}`));
    const deleted = await deleteRedisKeys(prefix).catch((error: Error) => {
      failures.push(`Redis keys ${prefix}*: ${error.message}`);
      return 0;
    });
    fs.rmSync(storage, { recursive: true, force: true });
    fs.rmSync(snapshot, { recursive: true, force: true });
    if (status !== 0)
      console.error(`[run-service] bench exited with ${status}; service log kept at ${logPath}`);
    else if (process.env.BENCH_KEEP_LOG === '1') console.error(`[run-service] service log: ${logPath}`);
    else fs.rmSync(logPath, { force: true });
    console.error(
      `[run-service] torn down: service stopped, database ${database} dropped, ${deleted} Redis keys deleted, storage removed` +
        (failures.length > 0 ? `; FAILED: ${failures.join('; ')}` : ''),
    );
  }
  return status;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
