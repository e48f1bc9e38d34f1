import { defaultLiveSessionCapacity, defaultWorkspaceShare } from './live-decoding';

describe('defaultLiveSessionCapacity', () => {
  it('admits what the cores sustain at the measured cost per session, at least one', () => {
    expect(defaultLiveSessionCapacity(1)).toBe(2);
    expect(defaultLiveSessionCapacity(2)).toBe(4);
    expect(defaultLiveSessionCapacity(8)).toBe(16);
  });
});

describe('defaultWorkspaceShare', () => {
  it("gives one workspace half of a process's sessions, at least one", () => {
    expect(defaultWorkspaceShare(1)).toBe(1);
    expect(defaultWorkspaceShare(3)).toBe(1);
    expect(defaultWorkspaceShare(4)).toBe(2);
    expect(defaultWorkspaceShare(16)).toBe(8);
  });
});
