import { isInfrastructureOutage } from '../common/problem/infrastructure-outage';
import { asStoreOutage } from './s3.storage';

const sdkError = (name: string, httpStatusCode: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode } });

describe('asStoreOutage', () => {
  it.each([
    ['InternalError', 500],
    ['ServiceUnavailable', 503],
    ['SlowDown', 503],
  ])('S3 answering %s (%i) is an outage (503 service-unavailable)', (name, status) => {
    expect(isInfrastructureOutage(sdkError(name, status))).toBe(false);
    expect(isInfrastructureOutage(asStoreOutage(sdkError(name, status)))).toBe(true);
  });

  it('an SDK timeout is an outage', () => {
    expect(
      isInfrastructureOutage(asStoreOutage(Object.assign(new Error('t'), { name: 'TimeoutError' }))),
    ).toBe(true);
  });

  it.each([
    ['AccessDenied', 403],
    ['NoSuchBucket', 404],
  ])('S3 answering %s (%i) stays a server error, not an outage', (name, status) => {
    const error = sdkError(name, status);
    expect(asStoreOutage(error)).toBe(error);
    expect(isInfrastructureOutage(asStoreOutage(error))).toBe(false);
  });
});
