import { defaultLiveSessionCapacity } from './live-decoding';

describe('defaultLiveSessionCapacity', () => {
  it('admits what the cores sustain at the measured cost per session, at least one', () => {
    expect(defaultLiveSessionCapacity(1)).toBe(2);
    expect(defaultLiveSessionCapacity(2)).toBe(4);
    expect(defaultLiveSessionCapacity(8)).toBe(16);
  });
});
