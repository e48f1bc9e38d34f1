import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The environment every e2e test app starts from: the machine's real PostgreSQL and Redis, a database of
 * its own, and a Redis key prefix of its own per run so parallel runs and dev servers do not collide.
 */
export const TEST_DATABASE_SERVER =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/stt_test';

/** Each jest run migrates a database of its own (set by global-setup), so concurrent runs never collide. */
export function testDatabaseUrl(): string {
  return process.env.STT_TEST_DATABASE_URL ?? TEST_DATABASE_SERVER;
}

export function baseTestEnvironment(): Record<string, string> {
  return {
    // Not production: plain-HTTP cookies (COOKIE_SECURE's default), as a developer's machine runs it.
    NODE_ENV: 'test',
    // A developer's ./.env (written by the quick start) never leaks into the processes tests start.
    ENV_FILE: 'none',
    DATABASE_URL: testDatabaseUrl(),
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    REDIS_PREFIX: process.env.STT_TEST_REDIS_PREFIX ?? 'stt-test',
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256',
    STORAGE_DIR: process.env.STT_TEST_STORAGE_DIR ?? join(tmpdir(), 'stt-test-storage'),
    ERRORS_BASE_URL: 'https://errors.transcription.example/problems',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Tests make many calls from one IP; the rate-limit suite sets the real limits on a fresh prefix.
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '100000',
    RATE_LIMIT_AUTHENTICATED_PER_MINUTE: '100000',
    RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000',
    LOG_LEVEL: 'error',
    // A fixed live capacity, the default's on 2 cores: unset, a process sizes it from what its sessions cost,
    // which earlier sessions on a loaded machine would move; test/e2e/realtime-admission.e2e-spec.ts covers that.
    REALTIME_MAX_SESSIONS: '4',
    // No installed models: tiers resolve `auto` to PocketSphinx whatever a developer pulled into ./var/models.
    MODELS_DIR: process.env.STT_TEST_MODELS_DIR ?? join(tmpdir(), 'stt-test-no-models'),
  };
}
