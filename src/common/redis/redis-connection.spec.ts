import { loadConfiguration } from '../../config/configuration';
import { RedisConfig } from './redis.config';
import { redisConnectionOptions } from './redis-connection';

const config = (environment: Record<string, string>): RedisConfig =>
  loadConfiguration([RedisConfig], environment).get(RedisConfig);

const noFile = (path: string): Buffer => {
  throw new Error(`ENOENT: no such file or directory, open '${path}'`);
};

describe('redisConnectionOptions', () => {
  it('a plain URL: host, port, database and credentials, no TLS, no sentinels', () => {
    const options = redisConnectionOptions(
      config({ REDIS_URL: 'redis://app:s%40cret@redis.internal:6380/3' }),
    );
    expect(options).toMatchObject({
      host: 'redis.internal',
      port: 6380,
      db: 3,
      username: 'app',
      password: 's@cret',
    });
    expect(options.tls).toBeUndefined();
    expect(options.sentinels).toBeUndefined();
  });

  it('the defaults: 127.0.0.1:6379, database 0, no credentials', () => {
    expect(redisConnectionOptions(config({}))).toMatchObject({
      host: '127.0.0.1',
      port: 6379,
      db: 0,
      username: undefined,
      password: undefined,
    });
  });

  it('rediss:// turns TLS on, with the CA file when one is given', () => {
    expect(redisConnectionOptions(config({ REDIS_URL: 'rediss://:pw@cache.example.com:6380' })).tls).toEqual(
      {},
    );
    const read: string[] = [];
    const options = redisConnectionOptions(
      config({ REDIS_URL: 'rediss://cache.example.com', REDIS_TLS_CA_FILE: '/etc/ssl/redis-ca.pem' }),
      (path) => {
        read.push(path);
        return Buffer.from('PEM');
      },
    );
    expect(options.tls).toEqual({ ca: Buffer.from('PEM') });
    expect(read).toEqual(['/etc/ssl/redis-ca.pem']);
  });

  it('a CA file that cannot be read stops the boot naming the variable', () => {
    expect(() =>
      redisConnectionOptions(
        config({ REDIS_URL: 'rediss://cache.example.com', REDIS_TLS_CA_FILE: '/missing.pem' }),
        noFile,
      ),
    ).toThrow(/^REDIS_TLS_CA_FILE="\/missing.pem": ENOENT/);
  });

  it('sentinels: the master by name, the sentinels’ own password, the URL’s credentials and database for the master', () => {
    const options = redisConnectionOptions(
      config({
        REDIS_URL: 'redis://:master-secret@ignored:1/2',
        REDIS_SENTINELS: '10.0.0.1:26379, sentinel-b:26380,[::1]:26381',
        REDIS_SENTINEL_MASTER: 'stt',
        REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      }),
    );
    expect(options).toMatchObject({
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 'sentinel-b', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      name: 'stt',
      role: 'master',
      sentinelPassword: 'sentinel-secret',
      sentinelUsername: undefined,
      password: 'master-secret',
      db: 2,
      failoverDetector: true,
    });
    expect(options.host).toBeUndefined();
    expect(options.enableTLSForSentinelMode).toBeUndefined();
  });

  it('sentinels with rediss://: TLS to the master and replicas they name', () => {
    const options = redisConnectionOptions(
      config({ REDIS_URL: 'rediss://x', REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_MASTER: 'm' }),
    );
    expect(options).toMatchObject({ tls: {}, enableTLSForSentinelMode: true });
  });

  it('reconnects within a second however long Redis was away, and on a reply that says this node is a replica', () => {
    const options = redisConnectionOptions(config({}));
    expect([1, 5, 20, 1000].map((attempt) => options.retryStrategy?.(attempt))).toEqual([
      50, 250, 1000, 1000,
    ]);
    const reconnect = (message: string) => options.reconnectOnError?.(Object.assign(new Error(message)));
    expect(reconnect("READONLY You can't write against a read only replica.")).toBe(2);
    expect(reconnect('LOADING Redis is loading the dataset in memory')).toBe(2);
    expect(reconnect('ERR wrong number of arguments')).toBe(false);
  });
});

describe('RedisConfig (sentinel variables)', () => {
  it('refuses a sentinel list entry without a port, and sentinels without a master name', () => {
    expect(() => config({ REDIS_SENTINELS: 'sentinel-a' })).toThrow(
      /REDIS_SENTINELS="sentinel-a": REDIS_SENTINELS is a comma-separated list of host:port/,
    );
    expect(() => config({ REDIS_SENTINELS: 'sentinel-a:26379' })).toThrow(
      /REDIS_SENTINEL_MASTER=null: REDIS_SENTINEL_MASTER is required with REDIS_SENTINELS/,
    );
  });
});
