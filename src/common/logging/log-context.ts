import { Inject, Injectable } from '@nestjs/common';
import type { Logger as PinoRootLogger } from 'pino';
// nestjs-pino's per-request store, which its Logger reads: a child logger put there binds every line.
import { storage as pinoContext, Store } from 'nestjs-pino/storage';
import { runWithRequestId } from './request-id';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/** Fields bound to every log line written while some work runs (a job, a webhook delivery). */
export interface LogBindings {
  requestId: string | null;
  [field: string]: string | number | null;
}

/**
 * Runs background work (a transcription job, a webhook delivery) in the logging context of the request that
 * caused it: every Nest `Logger` line written meanwhile, in any class, carries `requestId` and the other
 * bindings, and `currentRequestId()` answers it (so records made meanwhile keep it).
 */
@Injectable()
export class LogContext {
  constructor(@Inject(ROOT_LOGGER) private readonly root: PinoRootLogger) {}

  run<T>(bindings: LogBindings, work: () => Promise<T>): Promise<T> {
    const fields = Object.fromEntries(Object.entries(bindings).filter(([, value]) => value !== null));
    const store = new Store(this.root.child(fields));
    return pinoContext.run(store, () =>
      bindings.requestId === null ? work() : runWithRequestId(bindings.requestId, work),
    );
  }
}
