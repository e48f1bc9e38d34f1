import { Injectable } from '@nestjs/common';
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { publicOnlyLookup } from '../outbound-url/public-only-lookup';
import type { AttemptResult } from './webhook-retry-policy';

export interface WebhookPost {
  url: string;
  /** POST, or PUT for a Deepgram callback that asked for it (`callback_method=put`). */
  method?: 'POST' | 'PUT';
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: skip the address check on the resolved addresses. */
  allowPrivateTargets: boolean;
}

/** getaddrinfo's answers when a name does not resolve now (it may later): retried like any transient error. */
const DNS_FAILURE_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA', 'ESERVFAIL', 'ETIMEOUT']);

function describeError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  // Not `instanceof Error`: errors from another realm (a vm context, as under jest) would lose their message.
  const ownMessage = (error as { message?: unknown }).message;
  const message = typeof ownMessage === 'string' ? ownMessage : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message;
}

/**
 * One webhook POST over node:http(s): no redirects are followed (a 3xx is just a status), no connection
 * reuse, one deadline for connecting, sending and receiving the status line. The status is all that counts;
 * the response body is discarded unread.
 */
@Injectable()
export class WebhookHttpClient {
  post(input: WebhookPost): Promise<AttemptResult> {
    return new Promise<AttemptResult>((resolve) => {
      let url: URL;
      try {
        url = new URL(input.url);
      } catch {
        resolve({ statusCode: null, error: 'invalid URL' });
        return;
      }
      const deadline = AbortSignal.timeout(input.timeoutMs);
      const options: RequestOptions = {
        method: input.method ?? 'POST',
        headers: { ...input.headers, 'Content-Length': String(input.body.length) },
        agent: false,
        signal: deadline,
        ...(input.allowPrivateTargets ? {} : { lookup: publicOnlyLookup() }),
      };
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      let settled = false;
      const settle = (result: AttemptResult): void => {
        if (settled) return;
        settled = true;
        resolve(result);
      };
      let request: ClientRequest;
      try {
        request = send(url, options, (response: IncomingMessage) => {
          settle({ statusCode: response.statusCode ?? 0 });
          response.on('error', () => undefined);
          response.destroy();
        });
      } catch (error) {
        settle({ statusCode: null, error: `request error: ${describeError(error)}` });
        return;
      }
      request.on('error', (error) => {
        if ((error as { code?: unknown }).code === 'ENONPUBLIC') {
          settle({ statusCode: null, error: `refused: ${error.message}`, refused: true });
        } else if (deadline.aborted) {
          settle({ statusCode: null, error: `timeout: no answer within ${input.timeoutMs} ms` });
        } else if (DNS_FAILURE_CODES.has(String((error as { code?: unknown }).code))) {
          settle({ statusCode: null, error: `dns failure: ${describeError(error)}` });
        } else {
          settle({ statusCode: null, error: `connection error: ${describeError(error)}` });
        }
      });
      request.end(input.body);
    });
  }
}
