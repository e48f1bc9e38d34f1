import { isInfrastructureOutage } from './infrastructure-outage';

/** ioredis's errors as it raises them (Error, or ReplyError with the server's text as the message). */
const redisError = (message: string, name = 'Error') => Object.assign(new Error(message), { name });

describe('isInfrastructureOutage: what Redis says while a master fails over', () => {
  it.each([
    ['a command on a hung master past commandTimeout', redisError('Command timed out')],
    [
      'a command queued while the sentinels name no reachable master',
      redisError(
        'Reached the max retries per request limit (which is 2). Refer to "maxRetriesPerRequest" option for details.',
        'MaxRetriesPerRequestError',
      ),
    ],
    [
      'every sentinel unreachable',
      redisError(
        'All sentinels are unreachable. Retrying from scratch after 50ms. Last error: connect ECONNREFUSED',
      ),
    ],
    [
      'a write on a demoted master',
      redisError("READONLY You can't write against a read only replica.", 'ReplyError'),
    ],
    ['a node loading its data', redisError('LOADING Redis is loading the dataset in memory', 'ReplyError')],
    [
      'a replica that lost its master',
      redisError(
        "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
        'ReplyError',
      ),
    ],
  ])('%s is an outage (503 with Retry-After), not a bug', (_case, error) => {
    expect(isInfrastructureOutage(error)).toBe(true);
  });

  it('a command the server refuses for what it is stays a bug (500 with an error id)', () => {
    expect(isInfrastructureOutage(redisError("ERR unknown command 'NOPE'", 'ReplyError'))).toBe(false);
    expect(
      isInfrastructureOutage(
        redisError('WRONGTYPE Operation against a key holding the wrong kind of value', 'ReplyError'),
      ),
    ).toBe(false);
    expect(isInfrastructureOutage(redisError('ERR value READONLY is not an integer', 'ReplyError'))).toBe(
      false,
    );
  });
});
