import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Bull from 'bull';
import Redis from 'ioredis';
import { eventually } from '../../../test/support/eventually';
import { RedisServerProcess, SentinelSet } from '../../../test/support/redis-servers';
import { freePort } from '../../../test/support/service-process';
import { TcpFaultProxy } from '../../../test/support/tcp-fault-proxy';
import { loadConfiguration } from '../../config/configuration';
import { RedisConfig } from './redis.config';
import { redisConnectionOptions } from './redis-connection';
import { createRedisClient } from './redis.module';

const config = (environment: Record<string, string>): RedisConfig =>
  loadConfiguration([RedisConfig], environment).get(RedisConfig);

/** A certificate authority and a server certificate for 127.0.0.1 signed by it (openssl, in `dir`). */
function certificates(dir: string): { ca: string; otherCa: string; cert: string; key: string } {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  for (const name of ['ca', 'other-ca']) {
    openssl(
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
      '-keyout', `${name}.key`, '-out', `${name}.pem`, '-subj', `/CN=stt test ${name}`,
    ); // prettier-ignore
  }
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'); // prettier-ignore
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
    '-days', '1', '-out', 'server.pem', '-extfile', 'server.ext',
  ); // prettier-ignore
  return {
    ca: join(dir, 'ca.pem'),
    otherCa: join(dir, 'other-ca.pem'),
    cert: join(dir, 'server.pem'),
    key: join(dir, 'server.key'),
  };
}

describe('Redis connections against real servers (redisConnectionOptions)', () => {
  describe('rediss:// (Debian redis-server with TLS only, plain TCP off)', () => {
    let dir: string;
    let server: RedisServerProcess;
    let files: ReturnType<typeof certificates>;
    const clients: Redis[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'stt-redis-tls-'));
      files = certificates(dir);
      const port = await freePort();
      server = await RedisServerProcess.server(
        'redis-tls',
        dir,
        [
          '--port', '0', '--tls-port', String(port), '--tls-cert-file', files.cert, '--tls-key-file', files.key,
          '--tls-ca-cert-file', files.ca, '--tls-auth-clients', 'no', '--requirepass', 'tls-secret',
        ], // prettier-ignore
        port,
      );
    });
    afterAll(async () => {
      for (const client of clients) client.disconnect();
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the shared client and Bull (queue and worker) run over TLS with REDIS_TLS_CA_FILE', async () => {
      const settings = config({
        REDIS_URL: `rediss://:tls-secret@127.0.0.1:${server.port}/0`,
        REDIS_TLS_CA_FILE: files.ca,
      });
      const shared = createRedisClient(settings);
      clients.push(shared);
      expect(await shared.set('tls-check', 'over tls')).toBe('OK');
      expect(await shared.get('tls-check')).toBe('over tls');

      // Bull's clients get the same options (QueuesModule): a job added and processed over TLS.
      const queue = new Bull('tls-check', { redis: redisConnectionOptions(settings), prefix: 'stt-tls' });
      try {
        const processed = new Promise<unknown>((resolve) => {
          void queue.process(async (job) => resolve(job.data));
        });
        await queue.add({ over: 'tls' });
        expect(await processed).toEqual({ over: 'tls' });
      } finally {
        await queue.close();
      }
    });

    it('refuses a server whose certificate its CA did not sign (the certificate is checked)', async () => {
      const client = new Redis({
        ...redisConnectionOptions(
          config({
            REDIS_URL: `rediss://:tls-secret@127.0.0.1:${server.port}/0`,
            REDIS_TLS_CA_FILE: files.otherCa,
          }),
        ),
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      clients.push(client);
      const errors: string[] = [];
      client.on('error', (error: Error) => errors.push(error.message));
      await expect(client.ping()).rejects.toThrow();
      expect(errors.join('\n')).toMatch(
        /self-signed certificate|unable to verify|unable to get local issuer/,
      );
    });
  });

  describe('Sentinel (Debian redis-sentinel: a master, a replica, three sentinels)', () => {
    let redis: SentinelSet;
    const proxies: TcpFaultProxy[] = [];
    const clients: Redis[] = [];

    afterAll(async () => {
      for (const client of clients) client.disconnect();
      await Promise.all(proxies.map((proxy) => proxy.stop()));
      await redis?.stop();
    });

    it('every client follows the failover, also one that was asking a sentinel for the master when it was announced', async () => {
      redis = await SentinelSet.start({
        masterName: 'stt-connection',
        password: 'data-secret',
        sentinelPassword: 'sentinel-secret',
        downAfterMs: 1_000,
      });
      // Slow sentinels (each connection reaches them 200 to 800 ms late, in turn): a reconnecting client spends
      // most of its time asking them, and the twenty clients drift apart, so +switch-master lands in the middle of
      // an answer for some of them.
      let connections = 0;
      const delay = () => 200 + ((connections++ * 137) % 600);
      for (const sentinel of redis.sentinels) {
        proxies.push(await new TcpFaultProxy(sentinel.port, '127.0.0.1', { connectDelayMs: delay }).start());
      }
      const settings = config({
        ...redis.env(),
        REDIS_SENTINELS: proxies.map((proxy) => `127.0.0.1:${proxy.port}`).join(','),
      });
      for (let index = 0; index < 20; index++) {
        const client = new Redis({ ...redisConnectionOptions(settings), maxRetriesPerRequest: null });
        client.on('error', () => undefined);
        clients.push(client);
      }
      // Ready, and each client's failover detector subscribed on every sentinel.
      await eventually(
        'twenty clients ready and listening for +switch-master',
        async () => {
          if (!clients.every((client) => client.status === 'ready')) return false;
          for (const sentinel of redis.sentinels) {
            const answer = await redis.command(sentinel.port, 'sentinel-secret', 'PUBSUB', [
              'NUMSUB',
              '+switch-master',
            ]);
            if (Number(answer.trim().split('\n')[1]) < clients.length) return false;
          }
          return true;
        },
        30_000,
        100,
      );

      await redis.master.kill();
      await eventually(
        'the sentinels promoting the replica',
        async () => (await redis.currentMasterPort()) === redis.replica.port,
        30_000,
        100,
      );
      await eventually(
        'every client writing to the new master',
        async () => {
          await Promise.all(clients.map((client, index) => client.set(`failover-${index}`, 'written')));
          return true;
        },
        30_000,
        200,
      ).catch((error: Error) => {
        const statuses = clients.map((client) => client.status);
        throw new Error(`${error.message}; client statuses: ${statuses.join(', ')}`);
      });
      const written = await redis.command(redis.replica.port, 'data-secret', 'DBSIZE');
      expect(Number(written)).toBeGreaterThanOrEqual(clients.length);
    }, 90_000);
  });
});
