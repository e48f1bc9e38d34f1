import Redis from 'ioredis';
import { removeStorage, withAdminConnection } from './global-setup';

/** Removes this run's database, Redis keys and stored files (KEEP_TEST_DATABASE=1 keeps the database). */
export default async function globalTeardown(): Promise<void> {
  const prefix = process.env.STT_TEST_REDIS_PREFIX;
  if (prefix) {
    const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0');
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
  }
  removeStorage(process.env.STT_TEST_STORAGE_DIR);
  const templateUrl = process.env.STT_TEST_TEMPLATE_DATABASE_URL;
  if (templateUrl && !process.env.KEEP_TEST_DATABASE) {
    const template = new URL(templateUrl).pathname.slice(1);
    await withAdminConnection(async (admin) => {
      // The template and every per-file copy of it (`<template>_f…`).
      const { rows } = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $1 || '\\_f%'`,
        [template],
      );
      for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    });
  }
}
