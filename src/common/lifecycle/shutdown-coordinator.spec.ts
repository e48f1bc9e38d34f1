import { ProcessConfig } from './process.config';
import { loadConfigSlice } from '../../config/configuration';
import { ShutdownCoordinator } from './shutdown-coordinator';

describe('ShutdownCoordinator', () => {
  const coordinator = (graceMs = 1000) =>
    new ShutdownCoordinator(loadConfigSlice(ProcessConfig, { SHUTDOWN_GRACE_MS: String(graceMs) }));

  it('is draining from the signal on, and gives every part the same deadline, SHUTDOWN_GRACE_MS away', async () => {
    const shutdown = coordinator(5000);
    const deadlines: number[] = [];
    shutdown.onDrain('a', async (deadline) => void deadlines.push(deadline));
    shutdown.onDrain('b', async (deadline) => void deadlines.push(deadline));
    expect(shutdown.draining).toBe(false);
    const before = Date.now();
    const drained = shutdown.drain('SIGTERM');
    expect(shutdown.draining).toBe(true);
    await drained;
    expect(deadlines).toHaveLength(2);
    expect(deadlines[0]).toBe(deadlines[1]);
    expect(deadlines[0] - before).toBeGreaterThanOrEqual(5000);
  });

  it('drains once, however many signals arrive, and a failing part does not stop the others', async () => {
    const shutdown = coordinator();
    let calls = 0;
    shutdown.onDrain('failing', () => Promise.reject(new Error('broken')));
    shutdown.onDrain('counted', async () => void calls++);
    const first = shutdown.drain('SIGTERM');
    expect(shutdown.drain('SIGINT')).toBe(first);
    await expect(first).resolves.toBeUndefined();
    expect(calls).toBe(1);
  });

  it('skips parts that unregistered (an event stream that ended) and runs the clean-ups once closed', async () => {
    const shutdown = coordinator();
    let drainedEnded = false;
    let cleaned = 0;
    const unregister = shutdown.onDrain('ended-stream', async () => void (drainedEnded = true));
    unregister();
    shutdown.whenClosed(() => cleaned++);
    await shutdown.drain('SIGTERM');
    expect(drainedEnded).toBe(false);
    shutdown.onApplicationShutdown();
    shutdown.onApplicationShutdown();
    expect(cleaned).toBe(1);
  });
});
