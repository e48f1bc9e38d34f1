import { setTimeout as sleep } from 'node:timers/promises';
import { specRoutes, type ContractResponse, type SpecRoute } from '../openapi/openapi-contract';

/** One answer as the runner saw it: what the contract checks read, plus the raw bytes and cookies. */
export interface Exchange extends ContractResponse {
  operationId: string;
  method: string;
  /** Path and query as sent (no host). */
  target: string;
  headers: Record<string, string>;
  text: string;
  bytes: Buffer;
  setCookies: string[];
}

export type Credential =
  | { kind: 'none' }
  | { kind: 'bearer'; token: string }
  | { kind: 'api-key-header'; key: string }
  | { kind: 'cookie'; cookie: string };

export interface CallOptions {
  credential: Credential;
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  /** Exact query string (after `?`), for repeated or raw parameters. */
  rawQuery?: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: FormData;
  /** A raw body with its content type. */
  raw?: { body: string | Buffer; contentType: string };
  /** Statuses this call means to provoke: a 429 among them is not waited out and retried. */
  expecting?: number[];
  signal?: AbortSignal;
  /** Longer than the default 30 s for a call that waits for a job (the OpenAI-compatible route). */
  timeoutMs?: number;
}

/** Called for each rate-limit refusal the client waited out, so the report can show it. */
export type RateLimitListener = (exchange: Exchange, waitSeconds: number) => void;
/** Called when the client waits for a rate-limit window before a request (none refused). */
export type PacingListener = (bucket: string, waitMs: number) => void;

/** What the last answer of one rate-limit bucket said: calls left and when its window ends. */
interface BucketState {
  remaining: number;
  resetAt: number;
}

/** Slack after the window's announced end (x-ratelimit-reset is whole seconds, rounded up by the service). */
const PACING_MARGIN_MS = 250;

const MAX_RATE_LIMIT_RETRIES = 3;
const MAX_RATE_LIMIT_WAIT_SECONDS = 65;

/**
 * Calls operations of openapi.yaml by operationId against one base URL, with fetch. A 429 the caller did not
 * ask for is waited out (Retry-After) and the request sent again, so a run against a deployment with its real
 * rate limits finishes; the refusal itself is still checked against the contract by the listener.
 */
export class ContractHttpClient {
  private readonly routes = new Map<string, SpecRoute>(
    specRoutes().map((route) => [route.operationId, route]),
  );

  /** Per rate-limit bucket (a credential the service accepted, or the caller's address for the rest). */
  private readonly buckets = new Map<string, BucketState>();
  /** Tokens the service refused (401): their calls count against the address, as unauthenticated ones. */
  private readonly refusedTokens = new Set<string>();

  constructor(
    private readonly baseUrl: string,
    private readonly onRateLimited: RateLimitListener,
    private readonly timeoutMs = 30_000,
    private readonly onPaced: PacingListener = () => undefined,
  ) {}

  route(operationId: string): SpecRoute {
    const route = this.routes.get(operationId);
    if (!route) throw new Error(`openapi.yaml has no operation ${operationId}`);
    return route;
  }

  async call(operationId: string, options: CallOptions): Promise<Exchange> {
    for (let attempt = 0; ; attempt++) {
      if (!options.expecting?.includes(429)) await this.pace(options.credential, options.signal);
      const exchange = await this.send(operationId, options);
      this.remember(options.credential, exchange);
      const retryAfter = Number(exchange.headers['retry-after']);
      if (
        exchange.status !== 429 ||
        options.expecting?.includes(429) ||
        attempt >= MAX_RATE_LIMIT_RETRIES ||
        !Number.isFinite(retryAfter)
      ) {
        return exchange;
      }
      const wait = Math.min(Math.max(retryAfter, 1), MAX_RATE_LIMIT_WAIT_SECONDS);
      this.onRateLimited(exchange, wait);
      await sleep(wait * 1000, undefined, { signal: options.signal });
    }
  }

  /**
   * Paces the run by the service's own x-ratelimit-* headers: when the last answer of the request's bucket said
   * no call is left, waits until that window ends (x-ratelimit-reset) instead of sending into a 429 (which the
   * service answers by blocking the caller for a whole window, Retry-After 60 s).
   */
  private async pace(credential: Credential, signal: AbortSignal | undefined): Promise<void> {
    const bucket = this.bucketOf(credential);
    const state = this.buckets.get(bucket);
    if (!state) return;
    const now = Date.now();
    if (now >= state.resetAt) {
      this.buckets.delete(bucket);
      return;
    }
    if (state.remaining > 0) {
      state.remaining--;
      return;
    }
    const waitMs = state.resetAt - now + PACING_MARGIN_MS;
    this.onPaced(bucket, waitMs);
    await sleep(waitMs, undefined, { signal });
    this.buckets.delete(bucket);
  }

  private remember(credential: Credential, exchange: Exchange): void {
    const token = tokenOf(credential);
    if (token !== undefined && exchange.status === 401) this.refusedTokens.add(token);
    const remaining = Number(exchange.headers['x-ratelimit-remaining']);
    const reset = Number(exchange.headers['x-ratelimit-reset']);
    if (exchange.headers['x-ratelimit-remaining'] === undefined || !Number.isFinite(remaining)) return;
    if (!Number.isFinite(reset)) return;
    this.buckets.set(this.bucketOf(credential), { remaining, resetAt: Date.now() + reset * 1000 });
  }

  private bucketOf(credential: Credential): string {
    const token = tokenOf(credential);
    return token === undefined || this.refusedTokens.has(token) ? 'address' : `credential:${token}`;
  }

  /** The URL of an operation with its path parameters filled in (`{id}` → the value, percent-encoded). */
  url(operationId: string, options: Pick<CallOptions, 'path' | 'query' | 'rawQuery'>): string {
    const route = this.route(operationId);
    const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = options.path?.[name];
      if (value === undefined) throw new Error(`${operationId}: no value for path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const url = new URL(
      path.replace(/^\//, ''),
      this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`,
    );
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.append(name, String(value));
    }
    if (options.rawQuery !== undefined) url.search = options.rawQuery;
    return url.toString();
  }

  private async send(operationId: string, options: CallOptions): Promise<Exchange> {
    const route = this.route(operationId);
    const url = this.url(operationId, options);
    const headers: Record<string, string> = { ...credentialHeaders(options.credential), ...options.headers };
    let body: string | Buffer | FormData | undefined;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      body = options.form;
    } else if (options.raw) {
      headers['content-type'] = options.raw.contentType;
      body = options.raw.body;
    }
    const signals = [
      AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs),
      ...(options.signal ? [options.signal] : []),
    ];
    const response = await fetch(url, {
      method: route.method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.any(signals),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    return toExchange(operationId, route.method, url, response, bytes);
  }

  /** Opens an operation whose answer is a stream (Server-Sent Events); the caller reads `response.body`. */
  async open(operationId: string, options: CallOptions): Promise<Response> {
    const route = this.route(operationId);
    return fetch(this.url(operationId, options), {
      method: route.method,
      headers: { ...credentialHeaders(options.credential), ...options.headers },
      redirect: 'manual',
      signal: options.signal,
    });
  }
}

function tokenOf(credential: Credential): string | undefined {
  switch (credential.kind) {
    case 'none':
      return undefined;
    case 'bearer':
      return credential.token;
    case 'api-key-header':
      return credential.key;
    case 'cookie':
      return credential.cookie;
  }
}

export function credentialHeaders(credential: Credential): Record<string, string> {
  switch (credential.kind) {
    case 'none':
      return {};
    case 'bearer':
      return { authorization: `Bearer ${credential.token}` };
    case 'api-key-header':
      return { 'x-api-key': credential.key };
    case 'cookie':
      return { cookie: credential.cookie };
  }
}

export function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    // Set-Cookie comes once per cookie: joined, as the e2e tests' HTTP client joins repeated headers.
    const key = name.toLowerCase();
    record[key] = record[key] === undefined ? value : `${record[key]}, ${value}`;
  });
  return record;
}

export function toExchange(
  operationId: string,
  method: string,
  url: string,
  response: Response,
  bytes: Buffer,
): Exchange {
  const headers = headerRecord(response.headers);
  const text = bytes.toString('utf8');
  const mediaType = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  let body: unknown = mediaType === 'application/json' || mediaType.endsWith('+json') ? undefined : bytes;
  if (body === undefined) {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = text;
    }
  }
  const parsed = new URL(url);
  return {
    operationId,
    method,
    target: `${parsed.pathname}${parsed.search}`,
    status: response.status,
    headers,
    body,
    text: bytes.length > 0 && !isBinary(mediaType) ? text : '',
    bytes,
    setCookies: response.headers.getSetCookie(),
  };
}

function isBinary(mediaType: string): boolean {
  return (
    mediaType.startsWith('audio/') ||
    mediaType.startsWith('video/') ||
    mediaType === 'application/octet-stream' ||
    mediaType.includes('officedocument')
  );
}
