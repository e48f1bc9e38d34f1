import { SocketBackpressure } from './socket-backpressure';

function tracked(maxPendingBytes: number) {
  const calls: string[] = [];
  const backpressure = new SocketBackpressure(maxPendingBytes, {
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
  });
  return { backpressure, calls };
}

describe('SocketBackpressure', () => {
  it('reads while the unhandled messages stay within the bound, pauses above it, resumes once back within', () => {
    const { backpressure, calls } = tracked(1000);
    backpressure.received(600);
    backpressure.received(400);
    expect(backpressure.pendingBytes).toBe(1000);
    expect(calls).toEqual([]);
    backpressure.received(1);
    expect(calls).toEqual(['pause']);
    expect(backpressure.readingPaused).toBe(true);
    // A message over the bound on its own still gets in (reading pauses after it) and is handled.
    backpressure.received(5000);
    expect(calls).toEqual(['pause']);
    backpressure.handled(5000);
    expect(backpressure.pendingBytes).toBe(1001);
    expect(calls).toEqual(['pause']);
    backpressure.handled(600);
    expect(calls).toEqual(['pause', 'resume']);
    expect(backpressure.pendingBytes).toBe(401);
    expect(backpressure.readingPaused).toBe(false);
  });

  it('counts server events not yet written out: a client that does not read is not read either', () => {
    const { backpressure, calls } = tracked(1000);
    backpressure.received(300);
    backpressure.sending(800);
    expect(backpressure.pendingBytes).toBe(1100);
    expect(calls).toEqual(['pause']);
    backpressure.handled(300);
    expect(calls).toEqual(['pause', 'resume']);
    backpressure.sending(300);
    expect(calls).toEqual(['pause', 'resume', 'pause']);
    backpressure.sent(800);
    backpressure.sent(300);
    expect(backpressure.pendingBytes).toBe(0);
    expect(calls).toEqual(['pause', 'resume', 'pause', 'resume']);
  });

  it('stops reading for good once the session ends, whatever is handled or written afterwards', () => {
    const { backpressure, calls } = tracked(1000);
    backpressure.received(2000);
    backpressure.stop();
    backpressure.handled(2000);
    backpressure.sending(10);
    backpressure.sent(10);
    expect(calls).toEqual(['pause']);
    expect(backpressure.readingPaused).toBe(true);
    const idle = tracked(1000);
    idle.backpressure.stop();
    expect(idle.calls).toEqual(['pause']);
  });
});
