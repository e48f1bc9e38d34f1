import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ProcessConfig } from './process.config';

/** One part of the process that drains on shutdown; it must settle by `deadline` (epoch ms) or soon after. */
export type DrainStep = (deadline: number) => Promise<void>;

/**
 * The graceful shutdown of a process (SIGTERM/SIGINT, see graceful-shutdown.ts): readiness turns 503 at once,
 * then every registered part drains in parallel within SHUTDOWN_GRACE_MS (the HTTP server, event streams, the
 * transcription worker), and only then does Nest close connections to PostgreSQL and Redis.
 */
@Injectable()
export class ShutdownCoordinator implements OnApplicationShutdown {
  private readonly logger = new Logger(ShutdownCoordinator.name);
  private readonly steps = new Map<string, DrainStep>();
  private drainingSince: number | null = null;
  private drained: Promise<void> | null = null;
  private readonly onClosed: Array<() => void> = [];

  constructor(private readonly config: ProcessConfig) {}

  /** True from the shutdown signal on: the readiness probe answers 503 so a load balancer stops routing. */
  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** Registers a part that drains on shutdown; the returned function unregisters it. */
  onDrain(name: string, step: DrainStep): () => void {
    this.steps.set(name, step);
    return () => {
      if (this.steps.get(name) === step) this.steps.delete(name);
    };
  }

  /** Runs `cleanup` when the application has closed (signal listeners of an app closed by a test). */
  whenClosed(cleanup: () => void): void {
    this.onClosed.push(cleanup);
  }

  onApplicationShutdown(): void {
    this.onClosed.splice(0).forEach((cleanup) => cleanup());
  }

  /** Drains every part once; a second call returns the same promise. */
  drain(signal: string): Promise<void> {
    if (!this.drained) {
      this.drainingSince = Date.now();
      const deadline = this.drainingSince + this.config.SHUTDOWN_GRACE_MS;
      this.logger.log(`${signal}: draining (at most ${this.config.SHUTDOWN_GRACE_MS} ms)`);
      this.drained = Promise.all(
        [...this.steps].map(([name, step]) =>
          step(deadline).catch((error: Error) =>
            this.logger.warn(`Drain of ${name} failed: ${error.message}`),
          ),
        ),
      ).then(() => this.logger.log('Drained; closing'));
    }
    return this.drained;
  }
}

/** Resolves after `ms` (at least 0); unref'd, so it never holds the process open. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
}
