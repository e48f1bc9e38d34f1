import { signWebhookPayload } from '../webhooks/webhook-signature';
import { silentWav } from './cases-transcriptions';
import { parseEventStream } from './event-stream';
import { OptionsError, parseRunnerOptions, type RunnerOptions } from './options';
import { coverage, coverageTable, junitXml, summary } from './report';
import { RunContext } from './run-context';
import { inspectDelivery } from './webhook-receiver';

const BASE = ['--base-url', 'http://localhost:3000/', '--api-key', 'svc_live_x'];

function options(extra: string[] = []): RunnerOptions {
  const parsed = parseRunnerOptions([...BASE, ...extra], {});
  if (parsed === 'help') throw new Error('help');
  return parsed;
}

describe('stt-contract options', () => {
  it('defaults to full mode, a fresh seed and 10 examples; --seed replays', () => {
    const parsed = options();
    expect(parsed).toMatchObject({
      baseUrl: 'http://localhost:3000',
      mode: 'full',
      noJobs: false,
      maxExamples: 10,
    });
    expect(Number.isInteger(parsed.seed)).toBe(true);
    expect(options(['--seed', '42', '--mode', 'read-only', '--no-jobs'])).toMatchObject({
      seed: 42,
      mode: 'read-only',
      noJobs: true,
    });
    expect(options(['--operations', 'getBalance, getUsage']).operations).toEqual(
      new Set(['getBalance', 'getUsage']),
    );
  });

  it('refuses what cannot run: missing base URL or key, half pairs, unknown modes and options', () => {
    expect(() => parseRunnerOptions(['--api-key', 'k'], {})).toThrow(OptionsError);
    expect(() => parseRunnerOptions(['--base-url', 'http://x'], {})).toThrow(/--api-key/);
    expect(() => options(['--mode', 'production'])).toThrow(/full or read-only/);
    expect(() => options(['--email', 'a@example.com'])).toThrow(/go together/);
    expect(() => options(['--webhook-listen', '8080'])).toThrow(/go together/);
    expect(() => options(['--seed', '-1'])).toThrow(/--seed/);
    expect(() => options(['--bogus'])).toThrow();
    expect(() => options(['--operations', 'getBalance,getBalanse'])).toThrow(/no operation getBalanse/);
    expect(parseRunnerOptions(['--help'], {})).toBe('help');
  });
});

describe('stt-contract credentials from the environment (kept out of the process list)', () => {
  const env = {
    STT_BASE_URL: 'http://stt.internal:3000/',
    STT_API_KEY: 'k1',
    STT_API_KEY_2: 'k2',
    STT_EMAIL: 'qa@example.com',
    STT_PASSWORD: 'pw',
  };

  it('reads the address, keys and dashboard user from STT_* when no option is given', () => {
    expect(parseRunnerOptions([], env)).toMatchObject({
      baseUrl: 'http://stt.internal:3000',
      apiKey: 'k1',
      apiKey2: 'k2',
      email: 'qa@example.com',
      password: 'pw',
    });
  });

  it('an option wins over its variable; an empty variable counts as unset', () => {
    expect(parseRunnerOptions(['--api-key', 'from-option'], env)).toMatchObject({ apiKey: 'from-option' });
    expect(() => parseRunnerOptions([], { ...env, STT_API_KEY: '' })).toThrow(/STT_API_KEY/);
    expect(() => parseRunnerOptions([], { ...env, STT_PASSWORD: undefined })).toThrow(/go together/);
  });
});

describe('event stream parsing', () => {
  it('splits the retry hint, frames, heartbeats and the shutdown frame', () => {
    const blocks = parseEventStream(
      'retry: 3000\n\nid: 0\ndata: {"status":"queued","progress":0}\n\n: heartbeat\n\nid: 102\r\ndata: {"status":"completed","progress":100}\n\nevent: shutdown\ndata: {}\n\n',
    );
    expect(blocks).toEqual([
      { retry: '3000', data: [], comments: [] },
      { id: '0', data: ['{"status":"queued","progress":0}'], comments: [] },
      { data: [], comments: ['heartbeat'] },
      { id: '102', data: ['{"status":"completed","progress":100}'], comments: [] },
      { event: 'shutdown', data: ['{}'], comments: [] },
    ]);
  });
});

describe('webhook delivery checks', () => {
  const data = {
    webhookId: '0b7c6f9e-3f7a-4c1e-9d7e-2f4a8b1c5d6e',
    sentAt: '2026-01-31T12:00:00.000Z',
  };
  function delivery(secret: string, tamper = false, previousSecret?: string) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const rawBody = JSON.stringify({ event: 'webhook.test', timestamp, data });
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-service-timestamp': timestamp,
      'x-service-signature': signWebhookPayload(secret, timestamp, tamper ? `${rawBody} ` : rawBody),
      'x-service-delivery-id': 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b',
    };
    if (previousSecret)
      headers['x-service-signature-previous'] = signWebhookPayload(previousSecret, timestamp, rawBody);
    return { headers, rawBody };
  }

  it('verifies with the current secret, and with the previous one after a rotation', () => {
    const current = delivery('new-secret');
    const checked = inspectDelivery('/hooks', current.headers, current.rawBody, ['new-secret', 'old-secret']);
    expect({ findings: checked.findings, verifiedWith: checked.verifiedWith }).toEqual({
      findings: [],
      verifiedWith: 'current',
    });
    const rotatedOnly = delivery('unknown-to-receiver', false, 'old-secret');
    expect(
      inspectDelivery('/hooks', rotatedOnly.headers, rotatedOnly.rawBody, ['new-secret', 'old-secret'])
        .verifiedWith,
    ).toBe('previous');
  });

  it('reports a signature over other bytes, a missing header and a stale timestamp', () => {
    const tampered = delivery('s', true);
    expect(
      inspectDelivery('/', tampered.headers, tampered.rawBody, ['s']).findings.map((finding) => finding.path),
    ).toEqual(['header X-Service-Signature']);
    const { 'x-service-delivery-id': _id, ...withoutId } = delivery('s').headers;
    expect(
      inspectDelivery('/', withoutId, delivery('s').rawBody, ['s']).findings.map((finding) => finding.path),
    ).toContain('header X-Service-Delivery-Id');
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    const rawBody = JSON.stringify({ event: 'webhook.test', timestamp: old, data });
    const stale = inspectDelivery(
      '/',
      {
        ...delivery('s').headers,
        'x-service-timestamp': old,
        'x-service-signature': signWebhookPayload('s', old, rawBody),
      },
      rawBody,
      ['s'],
    );
    expect(stale.findings.map((finding) => finding.message)).toEqual([
      expect.stringContaining('more than 5 minutes'),
    ]);
  });
});

describe('report', () => {
  it('lists every operation with documented and seen statuses, and writes JUnit with failures and skips', () => {
    const run = new RunContext(options(['--seed', '7']));
    run.seen.set('getBalance', new Set([401, 200]));
    run.results.push(
      { operationId: 'getBalance', name: 'reads <it>', outcome: 'passed', failures: [], durationMs: 12 },
      {
        operationId: 'getUsage',
        name: 'window',
        outcome: 'failed',
        failures: [
          'getUsage GET /v1/account/usage → 418: status: 418, a status openapi.yaml does not document',
        ],
        durationMs: 3,
      },
      {
        operationId: 'signup',
        name: 'creates',
        outcome: 'skipped',
        failures: [],
        skipReason: 'not "deletable"',
        durationMs: 0,
      },
    );
    const rows = coverage(run);
    const table = coverageTable(rows);
    expect(table).toMatch(/\| getBalance +\| 200 401 403 429 431 500 503 +\| 200 401 +\| 1\/0\/0 +\|/);
    expect(table).toMatch(/\| deliverBalanceLow +\| 200 default +\| - +\|/);
    const text = summary(run, rows);
    expect(text).toContain('1 passed, 1 failed, 1 skipped');
    expect(text).toContain('seed 7 (replay: --seed 7)');
    expect(text).toContain('RESULT: FAIL');
    const xml = junitXml(run, rows);
    expect(xml).toContain('<testsuites name="stt-contract" tests="3" failures="1" skipped="1">');
    expect(xml).toContain('name="reads &lt;it&gt;"');
    expect(xml).toContain('<failure message="getUsage GET /v1/account/usage → 418: status: 418');
    expect(xml).toContain('<skipped message="not &quot;deletable&quot;"/>');
  });
});

describe('the generated too-short clip', () => {
  it('is a valid 16 kHz mono WAV of the asked length', () => {
    const wav = silentWav(0.3);
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(16_000);
    expect(wav.readUInt32LE(40)).toBe(9_600);
    expect(wav.length).toBe(44 + 9_600);
  });
});
