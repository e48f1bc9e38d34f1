import { describe, expect, it } from 'vitest';
import { formatEur } from './money';

describe('formatEur', () => {
  it('keeps every charged digit down to the micro-EUR, and at least two decimals', () => {
    expect(formatEur(0.001)).toBe('0.001 EUR');
    expect(formatEur(0.00055)).toBe('0.00055 EUR');
    expect(formatEur(0.000001)).toBe('0.000001 EUR');
    expect(formatEur(9.998345)).toBe('9.998345 EUR');
    expect(formatEur(10)).toBe('10.00 EUR');
    expect(formatEur(2.5)).toBe('2.50 EUR');
    expect(formatEur(0)).toBe('0.00 EUR');
  });
  it('rounds sums that floating point left off the micro-EUR grid, and keeps the sign of a debt', () => {
    expect(formatEur(0.1 + 0.2)).toBe('0.30 EUR');
    expect(formatEur(-1.25)).toBe('-1.25 EUR');
    expect(formatEur(-0.0000001)).toBe('0.00 EUR');
  });
});
