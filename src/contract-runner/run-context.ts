import { checkResponse, errorSlugs, openApiDocument } from '../openapi/openapi-contract';
import { ContractHttpClient, type CallOptions, type Credential, type Exchange } from './http-client';
import type { RunnerOptions } from './options';

export type Outcome = 'passed' | 'failed' | 'skipped';

export interface CaseResult {
  operationId: string;
  name: string;
  outcome: Outcome;
  failures: string[];
  skipReason?: string;
  durationMs: number;
}

/** A failed expectation inside a case: ends the case, recorded as its failure. */
export class CaseFailure extends Error {}

/** A case that cannot run (a missing option, a prerequisite that failed): recorded as skipped with the reason. */
export class CaseSkipped extends Error {}

const CATALOGUE = new Map<string, number>(
  ((openApiDocument()['x-problem-types'] as Array<{ slug: string; status: number }>) ?? []).map((entry) => [
    entry.slug,
    entry.status,
  ]),
);
const KNOWN_SLUGS = new Set(errorSlugs());
/** Operations whose errors are OpenAI's `{error: {...}}` body, not problem+json. */
const OPENAI_SHAPED = new Set(['createOpenAiTranscription']);

/** What one case sees: calls that are checked against the contract as they return, and expectations. */
export class CaseScope {
  readonly failures: string[] = [];

  constructor(
    private readonly run: RunContext,
    readonly operationId: string,
  ) {}

  /**
   * Calls an operation and checks the answer against openapi.yaml (status, media type, body schema, required
   * headers) and, for problems, the catalogue (a documented slug whose status is the one answered). Every
   * finding is recorded; the exchange is returned for the case's own expectations.
   */
  async call(operationId: string, options: CallOptions): Promise<Exchange> {
    const exchange = await this.run.client.call(operationId, { signal: this.run.abort.signal, ...options });
    this.run.check(exchange, this.failures);
    return exchange;
  }

  /** Fails the case unless `exchange` has `status` (and, for a problem, the slug `slug`). */
  expect(exchange: Exchange, status: number | number[], slug?: string): void {
    const statuses = Array.isArray(status) ? status : [status];
    if (!statuses.includes(exchange.status)) {
      this.fail(
        `${describe(exchange)}: expected ${statuses.join(' or ')}${slug ? ` ${slug}` : ''}, got ${exchange.status} ${
          slugOf(exchange) ?? ''
        } ${preview(exchange.text)}`,
      );
    }
    if (slug !== undefined && slugOf(exchange) !== slug) {
      this.fail(`${describe(exchange)}: expected problem type …/${slug}, got ${String(slugOf(exchange))}`);
    }
  }

  /** Sends each request and expects its refusal: `[request, status, slug]`, in order, all with `credential`. */
  async expectRefusals(
    operationId: string,
    credential: Credential,
    refusals: Array<[Omit<CallOptions, 'credential'>, number, string]>,
  ): Promise<void> {
    for (const [request, status, slug] of refusals) {
      this.expect(await this.call(operationId, { ...request, credential }), status, slug);
    }
  }

  /** Fails the case when `condition` is false. */
  check(condition: boolean, message: string): void {
    if (!condition) this.failures.push(`${this.operationId}: ${message}`);
  }

  fail(message: string): never {
    throw new CaseFailure(message);
  }

  skip(reason: string): never {
    throw new CaseSkipped(reason);
  }

  credential(which: 'key' | 'key2' | 'jwt' | 'none' | 'unknown-key'): Credential {
    return this.run.credential(which);
  }
}

/** Everything one run shares: options, client, results, coverage, the clean-up stack. */
export class RunContext {
  readonly results: CaseResult[] = [];
  /** Statuses seen per operationId (and per webhook event name). */
  readonly seen = new Map<string, Set<number>>();
  readonly client: ContractHttpClient;
  /** Aborted on SIGINT/SIGTERM; replaced by a fresh one for the clean-up. */
  abort = new AbortController();
  readonly notes: string[] = [];
  readonly startedAt = Date.now();
  private readonly cleanups: Array<{ label: string; run: () => Promise<void> }> = [];
  private problemBase: string | undefined;
  jwt: string | undefined;
  /** Time spent waiting for rate-limit windows (pacing by x-ratelimit-*), shown in the summary. */
  pacedMs = 0;

  constructor(readonly options: RunnerOptions) {
    this.client = new ContractHttpClient(
      options.baseUrl,
      (exchange, wait) => {
        // A refusal the run did not ask for is still an answer of the deployment: checked and reported.
        const failures: string[] = [];
        this.check(exchange, failures);
        this.results.push({
          operationId: exchange.operationId,
          name: `429 rate-limit waited out (Retry-After ${wait} s)`,
          outcome: failures.length > 0 ? 'failed' : 'passed',
          failures,
          durationMs: wait * 1000,
        });
        this.note(
          `${exchange.operationId}: 429 rate-limit, waited ${wait} s (Retry-After) and sent it again`,
        );
      },
      30_000,
      (bucket, waitMs) => {
        this.pacedMs += waitMs;
        this.note(
          `rate limit: no call left in this window for ${bucket === 'address' ? 'unauthenticated calls' : 'a credential'}` +
            ` (x-ratelimit-remaining 0): waited ${(waitMs / 1000).toFixed(1)} s for the next window`,
        );
      },
    );
  }

  note(message: string): void {
    this.notes.push(message);
    if (this.options.verbose) process.stdout.write(`  note: ${message}\n`);
  }

  selected(operationId: string): boolean {
    return this.options.operations === undefined || this.options.operations.has(operationId);
  }

  credential(which: 'key' | 'key2' | 'jwt' | 'none' | 'unknown-key'): Credential {
    switch (which) {
      case 'key':
        return { kind: 'bearer', token: this.options.apiKey };
      case 'key2':
        if (!this.options.apiKey2) throw new CaseSkipped('needs --api-key-2 (a key of another workspace)');
        return { kind: 'bearer', token: this.options.apiKey2 };
      case 'jwt':
        if (!this.jwt) throw new CaseSkipped('needs a session: --email and --password');
        return { kind: 'bearer', token: this.jwt };
      case 'none':
        return { kind: 'none' };
      case 'unknown-key':
        // Well-formed (svc_live_ + 40 base62) but issued by no deployment.
        return { kind: 'bearer', token: `svc_live_${'0'.repeat(34)}contra` };
    }
  }

  /** Contract findings of one exchange, plus the problem catalogue, added to `failures`. */
  check(exchange: Exchange, failures: string[]): void {
    const statuses = this.seen.get(exchange.operationId) ?? new Set<number>();
    statuses.add(exchange.status);
    this.seen.set(exchange.operationId, statuses);
    const where = describe(exchange);
    for (const finding of checkResponse(exchange, exchange.operationId).findings) {
      failures.push(`${where}: ${finding.path}: ${finding.message}`);
    }
    const mediaType = (exchange.headers['content-type'] ?? '').split(';')[0].trim();
    if (exchange.status >= 400 && !OPENAI_SHAPED.has(exchange.operationId)) {
      if (mediaType !== 'application/problem+json') return; // reported by the contract check above
      const type = (exchange.body as { type?: unknown } | undefined)?.type;
      const slug = slugOf(exchange);
      if (typeof type !== 'string' || slug === undefined || !KNOWN_SLUGS.has(slug)) {
        failures.push(`${where}: $.type: ${String(type)} is not a catalogued problem type (x-problem-types)`);
        return;
      }
      if (CATALOGUE.get(slug) !== exchange.status) {
        failures.push(
          `${where}: $.type: problem type ${slug} is catalogued with status ${CATALOGUE.get(slug)}, answered ${exchange.status}`,
        );
      }
      const base = type.slice(0, type.length - slug.length - 1);
      this.problemBase ??= base;
      if (base !== this.problemBase) {
        failures.push(`${where}: $.type: problem types use two bases, ${this.problemBase} and ${base}`);
      }
    }
  }

  /** Runs one case: its calls are checked, its failures and skips recorded. */
  async case(operationId: string, name: string, body: (scope: CaseScope) => Promise<void>): Promise<boolean> {
    if (!this.selected(operationId) || this.abort.signal.aborted) return false;
    const scope = new CaseScope(this, operationId);
    const started = Date.now();
    let outcome: Outcome = 'passed';
    let skipReason: string | undefined;
    try {
      await body(scope);
    } catch (error) {
      if (error instanceof CaseSkipped) {
        outcome = 'skipped';
        skipReason = error.message;
      } else if (error instanceof CaseFailure) {
        scope.failures.push(`${operationId}: ${error.message}`);
      } else if (this.abort.signal.aborted) {
        outcome = 'skipped';
        skipReason = 'interrupted';
      } else {
        scope.failures.push(`${operationId}: ${name}: ${(error as Error).stack ?? String(error)}`);
      }
    }
    if (scope.failures.length > 0) outcome = 'failed';
    const result: CaseResult = {
      operationId,
      name,
      outcome,
      failures: scope.failures,
      skipReason,
      durationMs: Date.now() - started,
    };
    this.results.push(result);
    if (this.options.verbose || outcome === 'failed') printResult(result);
    return outcome === 'passed';
  }

  /** Records a case that cannot run at all, with the reason (shown in the summary and the JUnit file). */
  skipped(operationId: string, name: string, reason: string): void {
    if (!this.selected(operationId)) return;
    this.results.push({
      operationId,
      name,
      outcome: 'skipped',
      failures: [],
      skipReason: reason,
      durationMs: 0,
    });
  }

  /** Registers the removal of something the run created; run in reverse order at the end or on a signal. */
  onCleanup(label: string, run: () => Promise<void>): void {
    this.cleanups.push({ label, run });
  }

  async cleanup(): Promise<void> {
    if (this.abort.signal.aborted) this.abort = new AbortController();
    while (this.cleanups.length > 0) {
      const next = this.cleanups.pop();
      if (!next) break;
      try {
        await next.run();
      } catch (error) {
        this.results.push({
          operationId: 'cleanup',
          name: next.label,
          outcome: 'failed',
          failures: [`cleanup: ${next.label}: ${(error as Error).message}`],
          durationMs: 0,
        });
      }
    }
  }
}

export function slugOf(exchange: Exchange): string | undefined {
  const type = (exchange.body as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' && type.includes('/') ? type.slice(type.lastIndexOf('/') + 1) : undefined;
}

export function describe(exchange: Exchange): string {
  return `${exchange.operationId} ${exchange.method} ${exchange.target} → ${exchange.status}`;
}

function preview(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function printResult(result: CaseResult): void {
  const mark = result.outcome === 'passed' ? 'ok  ' : result.outcome === 'failed' ? 'FAIL' : 'skip';
  const time = result.durationMs >= 1000 ? ` [${(result.durationMs / 1000).toFixed(1)} s]` : '';
  process.stdout.write(
    `${mark} ${result.operationId}: ${result.name}${result.skipReason ? ` (${result.skipReason})` : ''}${time}\n`,
  );
  for (const failure of result.failures) process.stdout.write(`     ${failure.replace(/\n/g, '\n     ')}\n`);
}
