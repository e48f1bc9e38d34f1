import { BillingConfig } from './billing.config';
import { loadConfigSlice } from '../config/configuration';
import { costMicro, pricePerMinuteMicro } from './pricing';

const config = loadConfigSlice(BillingConfig, {});

describe('pricing', () => {
  it('has the published prices per minute in micro-EUR and a documented premium_jade price', () => {
    expect(pricePerMinuteMicro(config, 'standard')).toBe(3000);
    expect(pricePerMinuteMicro(config, 'premium')).toBe(4500);
    expect(pricePerMinuteMicro(config, 'premium_jade')).toBe(6000);
  });

  it('bills whole minutes exactly', () => {
    expect(costMicro(60, 3000)).toBe(3000);
    expect(costMicro(600, 4500)).toBe(45_000);
  });

  it('prorates by the started second', () => {
    expect(costMicro(11, 3000)).toBe(550);
    expect(costMicro(10.2, 3000)).toBe(550);
    expect(costMicro(10.0, 4500)).toBe(750);
    expect(costMicro(0.4, 3000)).toBe(50);
  });

  it('rounds half up to a whole micro-EUR for odd prices', () => {
    expect(costMicro(1, 1)).toBe(0);
    expect(costMicro(30, 1)).toBe(1);
    expect(costMicro(7, 1000)).toBe(117);
  });

  it('never bills negative or NaN-like durations', () => {
    expect(costMicro(0, 3000)).toBe(0);
    expect(costMicro(-5, 3000)).toBe(0);
  });
});
