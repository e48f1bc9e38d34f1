import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { baseTestEnvironment, TEST_DATABASE_SERVER } from './test-environment';

const ROOT = join(__dirname, '..', '..');

/**
 * A fresh database migrated with the compiled CLI (the same path operators use), and a fresh storage dir.
 * The migrated database is the template every test file copies (test/support/e2e-setup.ts), so files never
 * see each other's rows: a worker's reconciler in one file cannot pick up jobs another file left queued.
 */
export default async function globalSetup(): Promise<void> {
  // Each test project (e2e, chaos, fuzz) declares this setup; one run shares one template database.
  if (process.env.STT_TEST_TEMPLATE_DATABASE_URL) return;
  const runId = `${Date.now().toString(36)}${process.pid}`;
  process.env.STT_TEST_REDIS_PREFIX = `stt-test-${runId}`;
  process.env.STT_TEST_RUN_REDIS_PREFIX = process.env.STT_TEST_REDIS_PREFIX;
  process.env.STT_TEST_STORAGE_DIR = join(ROOT, 'var', `test-storage-${runId}`);
  mkdirSync(process.env.STT_TEST_STORAGE_DIR, { recursive: true });

  const url = new URL(TEST_DATABASE_SERVER);
  const name = `${url.pathname.slice(1)}_${runId}`;
  url.pathname = `/${name}`;
  process.env.STT_TEST_DATABASE_URL = url.toString();
  process.env.STT_TEST_TEMPLATE_DATABASE_URL = url.toString();
  await withAdminConnection(async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  });

  execFileSync('node', [join(ROOT, 'dist', 'cli.js'), 'migrate'], {
    env: { ...process.env, ...baseTestEnvironment() },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export function removeStorage(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

export async function withAdminConnection(work: (admin: Client) => Promise<void>): Promise<void> {
  const url = new URL(TEST_DATABASE_SERVER);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await work(admin);
  } finally {
    await admin.end();
  }
}
