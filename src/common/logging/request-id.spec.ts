import { acceptedRequestId, currentRequestId, runWithRequestId } from './request-id';

describe('acceptedRequestId', () => {
  it('keeps ids of the safe charset up to 128 characters', () => {
    expect(acceptedRequestId('abc-123')).toBe('abc-123');
    expect(acceptedRequestId('Root=1-5e1b4151-5ac6c58f/x:y@z.~+')).toBe('Root=1-5e1b4151-5ac6c58f/x:y@z.~+');
    expect(acceptedRequestId('a'.repeat(128))).toBe('a'.repeat(128));
  });

  it('refuses empty, too long, repeated and unsafe ids (a log or header injection)', () => {
    expect(acceptedRequestId(undefined)).toBeNull();
    expect(acceptedRequestId('')).toBeNull();
    expect(acceptedRequestId('a'.repeat(129))).toBeNull();
    expect(acceptedRequestId(['a', 'b'])).toBeNull();
    expect(acceptedRequestId('abc 123')).toBeNull();
    expect(acceptedRequestId('abc\n{"level":"info"}')).toBeNull();
    expect(acceptedRequestId('<script>')).toBeNull();
  });
});

describe('currentRequestId', () => {
  it('is the id of the surrounding work, across awaits, and null outside any', async () => {
    expect(currentRequestId()).toBeNull();
    await runWithRequestId('req-1', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      expect(currentRequestId()).toBe('req-1');
    });
    expect(currentRequestId()).toBeNull();
  });
});
