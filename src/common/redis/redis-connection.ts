import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { SentinelConnector, type RedisOptions } from 'ioredis';
import type { RedisConfig } from './redis.config';

/** Longest wait between two reconnection attempts: a failover is followed within about this much. */
const MAX_RECONNECT_DELAY_MS = 1_000;

/**
 * Reply errors after which the connection is to the wrong node: a replica (a failover demoted the node this
 * connection is on, or a DNS name of managed Redis moved) or one still loading its data. The client reconnects,
 * asking the sentinels (or DNS) again, and resends the command.
 */
const RECONNECT_ON = /^(READONLY|LOADING|MASTERDOWN)\b/;

/**
 * How every Redis client of a process connects (the shared ioredis client for rate limits, throttles, events
 * and readiness, its pub/sub duplicate, and Bull's three clients per queue): the one place that reads REDIS_URL,
 * the sentinels and TLS. Per-client behaviour (retries per command, timeouts) is added by each caller.
 *
 * - Sentinel (REDIS_SENTINELS): the sentinels are asked for the master of REDIS_SENTINEL_MASTER at every
 *   (re)connection, and a `+switch-master` they announce makes the clients reconnect at once.
 * - TLS (`rediss://`): to the master and replicas, with REDIS_TLS_CA_FILE's CA when set (else the system's), the
 *   certificate checked against the host connected to. The sentinels themselves are reached in plain TCP.
 * - Reconnection every 50 ms growing to 1 s: Bull's own default grows to 20 s, which after a failover of a
 *   few seconds left the workers idle long after Redis was back.
 */
export function redisConnectionOptions(
  config: RedisConfig,
  readFile: (path: string) => Buffer = readFileSync,
): RedisOptions {
  const url = new URL(config.REDIS_URL);
  const tls = url.protocol === 'rediss:' ? tlsOptions(config, readFile) : undefined;
  const database = Number(url.pathname.replace(/^\//, '') || '0');
  const common: RedisOptions = {
    username: decodeURIComponent(url.username) || undefined,
    password: decodeURIComponent(url.password) || undefined,
    db: Number.isInteger(database) ? database : 0,
    retryStrategy: (attempt) => Math.min(attempt * 50, MAX_RECONNECT_DELAY_MS),
    reconnectOnError: (error) => (RECONNECT_ON.test(error.message) ? 2 : false),
  };
  if (config.REDIS_SENTINELS.length === 0) {
    return {
      ...common,
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(url.port || 6379),
      ...(tls ? { tls } : {}),
    };
  }
  return {
    ...common,
    sentinels: config.REDIS_SENTINELS.map(parseSentinel),
    name: config.REDIS_SENTINEL_MASTER,
    role: 'master',
    sentinelUsername: config.REDIS_SENTINEL_USERNAME || undefined,
    sentinelPassword: config.REDIS_SENTINEL_PASSWORD || undefined,
    sentinelRetryStrategy: (attempt) => Math.min(attempt * 50, MAX_RECONNECT_DELAY_MS),
    // Subscribes to the sentinels' +switch-master: a failover that leaves the old connection open (a network
    // partition, a hung master) is followed as soon as it is announced.
    failoverDetector: true,
    Connector: FailoverSafeSentinelConnector,
    ...(tls ? { tls, enableTLSForSentinelMode: true } : {}),
  };
}

/** Node checks the certificate against the host connected to: REDIS_URL's, or the address a sentinel named. */
function tlsOptions(
  config: RedisConfig,
  readFile: (path: string) => Buffer,
): NonNullable<RedisOptions['tls']> {
  return config.REDIS_TLS_CA_FILE === '' ? {} : { ca: readCertificateAuthority(config, readFile) };
}

function readCertificateAuthority(config: RedisConfig, readFile: (path: string) => Buffer): Buffer {
  try {
    return readFile(config.REDIS_TLS_CA_FILE);
  } catch (error) {
    throw new Error(`REDIS_TLS_CA_FILE="${config.REDIS_TLS_CA_FILE}": ${(error as Error).message}`);
  }
}

function parseSentinel(address: string): { host: string; port: number } {
  const separator = address.lastIndexOf(':');
  return {
    host: address.slice(0, separator).replace(/^\[(.*)\]$/, '$1'),
    port: Number(address.slice(separator + 1)),
  };
}

/** ioredis's message for a connection closed on purpose (`CONNECTION_CLOSED_ERROR_MSG` in its utils). */
const CONNECTION_CLOSED = 'Connection is closed.';

/**
 * ioredis's SentinelConnector with one fix. Its failover detector disconnects the connector when the sentinels
 * announce +switch-master; when that lands while a client is reconnecting and asking a sentinel for the master,
 * the connector's connect() rejects and ioredis ends the client for good ("Connection is closed." on every
 * command until the process restarts: an API's event streams all answered 503 after one run in about eight of
 * the failover chaos test; redis-connection.integration-spec.ts provokes it with slow sentinels). Here such a connect gives a socket that closes at once
 * instead, so ioredis decides as after any lost connection: reconnect, unless the client itself was being
 * closed (quit, disconnect), which still ends it.
 */
export class FailoverSafeSentinelConnector extends SentinelConnector {
  /** ioredis constructs it from the client's options (the `Connector` option). */
  constructor(options: unknown) {
    super(options as ConstructorParameters<typeof SentinelConnector>[0]);
  }

  override async connect(
    ...parameters: Parameters<SentinelConnector['connect']>
  ): ReturnType<SentinelConnector['connect']> {
    try {
      return await super.connect(...parameters);
    } catch (error) {
      if (!(error instanceof Error) || error.message !== CONNECTION_CLOSED) throw error;
      const closed = new Socket();
      // After ioredis has attached its handlers to the stream (they are attached when this promise settles).
      setImmediate(() => closed.destroy());
      return closed;
    }
  }
}
