import { ProblemException } from '../common/problem/problem.exception';
import { toDeepgramError } from './deepgram-error';

describe('toDeepgramError', () => {
  it.each([
    ['invalid-api-key', 401, 'INVALID_AUTH'],
    ['insufficient-balance', 402, 'ASR_PAYMENT_REQUIRED'],
    ['forbidden', 403, 'INSUFFICIENT_PERMISSIONS'],
    ['unsupported-format', 400, 'Bad Request'],
    ['invalid-model', 400, 'Bad Request'],
    ['file-too-large', 413, 'PAYLOAD_TOO_LARGE'],
    ['rate-limit', 429, 'TOO_MANY_REQUESTS'],
    ['idempotency-key-in-flight', 409, 'IDEMPOTENCY_KEY_IN_FLIGHT'],
    ['service-unavailable', 503, 'SERVICE_UNAVAILABLE'],
    ['not-found', 404, 'NOT_FOUND'],
  ] as const)('%s → %i %s', (slug, status, errCode) => {
    const error = toDeepgramError(new ProblemException(slug, 'why'));
    expect({ status: error.status, errCode: error.errCode, message: error.message }).toEqual({
      status,
      errCode,
      message: 'why',
    });
  });

  it('keeps the headers (Retry-After) and names the first invalid field in the message', () => {
    const limited = toDeepgramError(
      new ProblemException('rate-limit', 'slow down', {}, { 'Retry-After': '7' }),
    );
    expect(limited.headers).toEqual({ 'Retry-After': '7' });
    const field = toDeepgramError(ProblemException.field('utt_split', 'utt_split must be a number'), 'job-1');
    expect(field.message).toBe('utt_split must be a number');
    expect(field.requestId).toBe('job-1');
    const other = toDeepgramError(
      ProblemException.validation({ fieldErrors: { language: ['must be a known code'] } }),
    );
    expect(other.message).toBe('The request is not valid. language: must be a known code.');
  });
});
