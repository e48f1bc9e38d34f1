import { INestApplicationContext, Logger } from '@nestjs/common';
import type { Server } from 'node:http';
import { ShutdownCoordinator, sleep } from './shutdown-coordinator';
import { shutdownTracing } from '../tracing/trace-context';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** How often idle keep-alive connections are closed while requests in flight finish. */
const IDLE_SWEEP_MS = 200;

/**
 * Replaces Nest's enableShutdownHooks, which closes at once and re-raises the signal (exit by signal): on
 * SIGTERM or SIGINT the process drains first (ShutdownCoordinator), then closes its modules and exits 0.
 * A second signal while draining is ignored; a failure to close exits 1.
 */
export function closeGracefullyOnSignals(app: INestApplicationContext): void {
  const logger = new Logger('Shutdown');
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) return;
    closing = true;
    void (async () => {
      try {
        await app.get(ShutdownCoordinator).drain(signal);
        await app.close();
        // The spans still buffered go to the collector before the exit (nothing to do without tracing).
        await shutdownTracing();
        process.exit(0);
      } catch (error) {
        logger.error(`Shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      }
    })();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  app.get(ShutdownCoordinator).whenClosed(() => {
    for (const signal of SIGNALS) process.removeListener(signal, onSignal);
  });
}

/**
 * The HTTP server's part of the drain: no new connections, idle keep-alive ones closed, requests in flight
 * finish until the deadline, after which whatever is left is cut.
 */
export function drainHttpServerOnShutdown(server: Server, coordinator: ShutdownCoordinator): void {
  coordinator.onDrain('http-server', async (deadline) => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    let done = false;
    void closed.then(() => (done = true));
    while (!done && Date.now() < deadline) {
      server.closeIdleConnections();
      await Promise.race([closed, sleep(Math.min(IDLE_SWEEP_MS, deadline - Date.now()))]);
    }
    if (!done) server.closeAllConnections();
    await closed;
  });
}
