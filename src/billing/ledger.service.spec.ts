import { crossesLowBalanceThreshold, recoversLowBalanceThreshold } from './ledger.service';

describe('balance.low crossing rules', () => {
  const threshold = 1_000_000;

  it('fires on a move from at/above the threshold to below it, only while armed', () => {
    expect(crossesLowBalanceThreshold(1_500_000, 900_000, threshold, true)).toBe(true);
    expect(crossesLowBalanceThreshold(1_000_000, 999_999, threshold, true)).toBe(true);
    expect(crossesLowBalanceThreshold(1_500_000, 900_000, threshold, false)).toBe(false);
  });

  it('does not fire while staying above, staying below, or landing exactly on the threshold', () => {
    expect(crossesLowBalanceThreshold(2_000_000, 1_500_000, threshold, true)).toBe(false);
    expect(crossesLowBalanceThreshold(900_000, 800_000, threshold, true)).toBe(false);
    expect(crossesLowBalanceThreshold(1_500_000, 1_000_000, threshold, true)).toBe(false);
  });

  it('re-arms only once the balance is strictly above the threshold ("recover above", not "reach")', () => {
    expect(recoversLowBalanceThreshold(1_000_001, threshold)).toBe(true);
    expect(recoversLowBalanceThreshold(1_500_000, threshold)).toBe(true);
    expect(recoversLowBalanceThreshold(1_000_000, threshold)).toBe(false);
    expect(recoversLowBalanceThreshold(950_000, threshold)).toBe(false);
  });
});
