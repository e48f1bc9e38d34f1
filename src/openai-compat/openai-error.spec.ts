import { ProblemException } from '../common/problem/problem.exception';
import { toOpenAiError } from './openai-error';

describe('toOpenAiError', () => {
  it('answers a bad credential as OpenAI’s 401 invalid_api_key', () => {
    const error = toOpenAiError(new ProblemException('invalid-api-key', 'The API key is not valid.'));
    expect({ status: error.status, body: error.body }).toEqual({
      status: 401,
      body: {
        error: {
          message: 'The API key is not valid.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    });
  });

  it('answers no money as 429 insufficient_quota that the SDK must not retry', () => {
    const error = toOpenAiError(
      new ProblemException('insufficient-balance', 'Top up.', {}, { Connection: 'close' }),
    );
    expect(error).toMatchObject({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(error.headers).toEqual({ Connection: 'close', 'x-should-retry': 'false' });
  });

  it('keeps Retry-After on a rate limit, and answers bad input as 400 naming the field', () => {
    const limited = toOpenAiError(
      new ProblemException('rate-limit', 'Slow down.', {}, { 'Retry-After': '7' }),
    );
    expect(limited).toMatchObject({ status: 429, type: 'requests', code: 'rate_limit_exceeded' });
    expect(limited.headers).toEqual({ 'Retry-After': '7' });
    expect(toOpenAiError(ProblemException.field('language', 'language is bad'))).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      param: 'language',
    });
    expect(toOpenAiError(new ProblemException('file-too-large', 'Too big.'))).toMatchObject({
      status: 413,
      code: 'file_too_large',
      param: 'file',
    });
  });

  it('keeps the status of a slug it does not name, typed by its class', () => {
    expect(toOpenAiError(new ProblemException('not-found', 'Nope.'))).toMatchObject({
      status: 404,
      type: 'invalid_request_error',
    });
    expect(toOpenAiError(new ProblemException('internal', 'Boom, error id 1.'))).toMatchObject({
      status: 500,
      type: 'server_error',
    });
  });
});
