import { liveSessionCapacity, defaultWorkspaceShare } from './live-decoding';

describe('liveSessionCapacity', () => {
  it('admits what the cores sustain at the measured cost per session, at least one', () => {
    expect(liveSessionCapacity(1)).toBe(2);
    expect(liveSessionCapacity(2)).toBe(4);
    expect(liveSessionCapacity(8)).toBe(16);
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
