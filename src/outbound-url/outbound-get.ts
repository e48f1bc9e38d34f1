import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { OutboundUrlPolicy } from './outbound-url-policy';
import { publicOnlyLookup } from './public-only-lookup';

/** Why an outbound GET did not reach a 2xx answer; `reason` is worded for the client that sent the URL. */
export class OutboundGetError extends Error {
  constructor(
    /** `refused`: the URL as sent breaks the policy; `unreachable`: a redirect, the transport or the status. */
    readonly kind: 'refused' | 'unreachable',
    readonly reason: string,
  ) {
    super(reason);
  }
}

export interface OutboundGetOptions {
  policy: OutboundUrlPolicy;
  /** Redirects followed; each target is checked like the first URL. */
  maxRedirects: number;
  /** One deadline for every hop, the headers and the whole body. */
  deadline: AbortSignal;
  timeoutMs: number;
  headers: Record<string, string>;
}

/**
 * GET `rawUrl` under the outbound-URL policy: the URL and every redirect target pass `policy.checkUrl`, and
 * the connection's resolver refuses non-public addresses (checked at connect time, so a DNS answer cannot
 * change in between). Resolves with the first 2xx answer (its body unread) and the URL that gave it.
 */
export async function outboundGet(
  rawUrl: string,
  options: OutboundGetOptions,
): Promise<{ response: IncomingMessage; url: string }> {
  let url = rawUrl;
  for (let redirects = 0; ; redirects++) {
    const verdict = options.policy.checkUrl(url);
    if (!verdict.allowed) {
      throw redirects === 0
        ? new OutboundGetError('refused', verdict.reason)
        : new OutboundGetError('unreachable', `redirect to ${url}: ${verdict.reason}`);
    }
    const response = await get(url, options);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.destroy();
      if (redirects === options.maxRedirects) {
        throw new OutboundGetError('unreachable', `more than ${options.maxRedirects} redirects`);
      }
      url = new URL(location, url).href;
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new OutboundGetError('unreachable', `HTTP ${status}`);
    }
    return { response, url };
  }
}

/** A transport failure in the client's words: the deadline, a refused address, or the socket's error. */
export function describeTransportError(
  error: unknown,
  options: Pick<OutboundGetOptions, 'deadline' | 'timeoutMs'>,
): string {
  if (options.deadline.aborted) return `no complete answer within ${options.timeoutMs} ms`;
  const code = (error as { code?: unknown }).code;
  const message = String((error as { message?: unknown }).message ?? error);
  if (code === 'ENONPUBLIC') return message;
  return typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message;
}

function get(url: string, options: OutboundGetOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const unreachable = (error: unknown): OutboundGetError =>
      new OutboundGetError('unreachable', describeTransportError(error, options));
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let request: ClientRequest;
    try {
      request = send(target, {
        method: 'GET',
        agent: false,
        signal: options.deadline,
        headers: options.headers,
        ...(options.policy.allowPrivateTargets ? {} : { lookup: publicOnlyLookup() }),
      });
    } catch (error) {
      reject(unreachable(error));
      return;
    }
    request.on('response', resolve);
    request.on('error', (error) => reject(unreachable(error)));
    request.end();
  });
}
