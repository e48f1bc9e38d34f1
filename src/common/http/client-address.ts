import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';

/**
 * The client address of the HTTP request being served, as `request.ip` gives it (X-Forwarded-For only from
 * the proxies TRUST_PROXY names). Kept beside the request id so a record made while serving the request (an
 * audit event) can say where it came from without every service taking the request as a parameter.
 */
const clientAddressContext = new AsyncLocalStorage<string>();

export function currentClientAddress(): string | null {
  return clientAddressContext.getStore() ?? null;
}

export function runWithClientAddress<T>(address: string, work: () => T): T {
  return clientAddressContext.run(address, work);
}

/**
 * Binds the request's client address for everything that serves it. Mounted right after `trust proxy` is
 * set (bootstrap.ts), so `request.ip` already follows it.
 */
export function bindClientAddress(request: Request, _response: Response, next: NextFunction): void {
  const address = request.ip ?? request.socket.remoteAddress;
  if (address === undefined) return next();
  runWithClientAddress(address, next);
}
