/** The code storage adapters give an error of a store that answered 5xx or timed out (see S3Storage). */
export const STORE_UNAVAILABLE = 'ESTOREUNAVAILABLE';

/**
 * Error codes that mean PostgreSQL or Redis cannot be reached, or upload storage cannot take more, right now
 * (as opposed to a bug).
 */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000', // connection_exception
  '08003', // connection_does_not_exist
  '08006', // connection_failure
  '53300', // too_many_connections
  'ENOSPC', // upload storage full: an operator frees space, the client retries (docs/decisions.md)
  'EDQUOT', // upload storage over quota
  STORE_UNAVAILABLE,
]);

const OUTAGE_MESSAGES = [
  'Connection terminated',
  'connect ECONNREFUSED',
  'Connection is closed',
  'timeout exceeded when trying to connect',
  'Query read timeout', // pg's query_timeout: PostgreSQL accepted the query but never answered
  'MaxRetriesPerRequestError',
  'Reached the max retries per request limit',
  "Stream isn't writeable",
  // ioredis's commandTimeout: Redis accepted the connection but never answered (a hung or cut-off master, until
  // the sentinels' failover is followed)
  'Command timed out',
  'All sentinels are unreachable',
];

/**
 * Redis replies of a node that cannot take the command now: a replica (a failover demoted the node the connection
 * is on), one loading its data after a restart, or a replica that lost its master.
 */
const REDIS_NOT_NOW = /^(READONLY|LOADING|MASTERDOWN) /;

export function isInfrastructureOutage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as { code?: unknown; message?: unknown; driverError?: unknown; name?: unknown };
  if (typeof candidate.code === 'string' && OUTAGE_CODES.has(candidate.code)) return true;
  if (candidate.name === 'MaxRetriesPerRequestError') return true;
  if (
    typeof candidate.message === 'string' &&
    (OUTAGE_MESSAGES.some((m) => String(candidate.message).includes(m)) ||
      REDIS_NOT_NOW.test(candidate.message))
  ) {
    return true;
  }
  return candidate.driverError !== undefined && isInfrastructureOutage(candidate.driverError);
}
