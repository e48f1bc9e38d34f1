import { formatCaptionTimestamp, formatClock, toMilliseconds } from './timestamp';

describe('timestamps', () => {
  it('formats SRT and WebVTT times with their own separator', () => {
    expect(formatCaptionTimestamp(3723.456, ',')).toBe('01:02:03,456');
    expect(formatCaptionTimestamp(3723.456, '.')).toBe('01:02:03.456');
    expect(formatCaptionTimestamp(0, ',')).toBe('00:00:00,000');
  });

  it('rounds to the nearest millisecond and carries into seconds, minutes and hours', () => {
    expect(formatCaptionTimestamp(1.2344, '.')).toBe('00:00:01.234');
    expect(formatCaptionTimestamp(1.2346, '.')).toBe('00:00:01.235');
    expect(formatCaptionTimestamp(59.9996, '.')).toBe('00:01:00.000');
    expect(formatCaptionTimestamp(3599.9999, '.')).toBe('01:00:00.000');
  });

  it('lets hours grow past two digits instead of wrapping', () => {
    expect(formatCaptionTimestamp(100 * 3600 + 1.5, ',')).toBe('100:00:01,500');
    expect(formatClock(123 * 3600)).toBe('123:00:00');
  });

  it('treats negative and non-finite input as zero', () => {
    expect(formatCaptionTimestamp(-2, ',')).toBe('00:00:00,000');
    expect(formatCaptionTimestamp(Number.NaN, '.')).toBe('00:00:00.000');
    expect(toMilliseconds(Number.POSITIVE_INFINITY)).toBe(0);
  });

  it('truncates the paragraph clock to the second so it never points after the speech', () => {
    expect(formatClock(83.999)).toBe('00:01:23');
    expect(formatClock(3661)).toBe('01:01:01');
    expect(formatClock(0.4)).toBe('00:00:00');
  });
});
