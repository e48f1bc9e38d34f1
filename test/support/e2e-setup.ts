import { randomBytes } from 'node:crypto';
import { withAdminConnection } from './global-setup';

// e2e tests run real jobs and boot real applications; jest's per-project config has no testTimeout.
jest.setTimeout(120_000);

/**
 * Every test file gets its own copy of the migrated template database and its own Redis key prefix, so
 * files are isolated from each other even though they share one PostgreSQL and one Redis server.
 * The names are set before the test file is loaded (files may read the environment at describe time);
 * the copy is made before the file's own hooks run and dropped with the template in global-teardown.
 */
const template = new URL(process.env.STT_TEST_TEMPLATE_DATABASE_URL ?? 'postgres://invalid/unset');
const suffix = randomBytes(4).toString('hex');
const copy = new URL(template.toString());
copy.pathname = `${template.pathname}_f${suffix}`;
process.env.STT_TEST_DATABASE_URL = copy.toString();
process.env.STT_TEST_REDIS_PREFIX = `${process.env.STT_TEST_RUN_REDIS_PREFIX ?? 'stt-test'}-f${suffix}`;

beforeAll(async () => {
  await withAdminConnection(async (admin) => {
    await admin.query(`CREATE DATABASE "${copy.pathname.slice(1)}" TEMPLATE "${template.pathname.slice(1)}"`);
  });
});
