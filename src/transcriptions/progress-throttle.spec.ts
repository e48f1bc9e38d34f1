import { ProgressThrottle } from './progress-throttle';

describe('ProgressThrottle', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function throttle(startFrom = 0) {
    const published: number[] = [];
    const written: number[] = [];
    const progress = new ProgressThrottle(
      startFrom,
      500,
      (value) => published.push(value),
      (value) => written.push(value),
    );
    return { progress, published, written };
  }

  it('publishes every new value and writes the first one at once', () => {
    const { progress, published, written } = throttle();
    progress.report(10);
    progress.report(20);
    expect(published).toEqual([10, 20]);
    expect(written).toEqual([10]);
  });

  it('writes the latest value when the interval ends (a burst never leaves a stale value stored)', () => {
    const { progress, written } = throttle();
    progress.report(10);
    progress.report(20);
    progress.report(53);
    jest.advanceTimersByTime(499);
    expect(written).toEqual([10]);
    jest.advanceTimersByTime(1);
    expect(written).toEqual([10, 53]);
  });

  it('never goes back, also below where a retried attempt started', () => {
    const { progress, published } = throttle(40);
    progress.report(0);
    progress.report(20);
    progress.report(45);
    progress.report(44);
    expect(published).toEqual([45]);
  });

  it('keeps 100 for completion and writes nothing after stop()', () => {
    const { progress, published, written } = throttle();
    progress.report(10);
    progress.report(150);
    progress.stop();
    jest.advanceTimersByTime(1000);
    expect(published).toEqual([10, 99]);
    expect(written).toEqual([10]);
  });
});
