import { loadAppConfiguration } from './app-configuration';
import { AccountConfig } from './account/account.config';
import { AdminConfig } from './admin/admin.config';
import { BillingConfig } from './billing/billing.config';
import { HttpConfig } from './common/http/http.config';
import { RateLimitConfig } from './common/http/rate-limit.config';
import { ProcessConfig } from './common/lifecycle/process.config';
import { ConfigValidationError } from './config/configuration';
import { OutboundUrlConfig } from './outbound-url/outbound-url.config';

const minimal = { JWT_SECRET: 'x'.repeat(32) };

describe('loadAppConfiguration', () => {
  it('applies the documented defaults', () => {
    const configuration = loadAppConfiguration(minimal);
    expect(configuration.get(ProcessConfig).ROLE).toBe('all');
    expect(configuration.get(HttpConfig).PORT).toBe(3000);
    expect(configuration.get(OutboundUrlConfig).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(configuration.get(BillingConfig)).toMatchObject({
      PRICE_STANDARD_EUR_PER_MINUTE: 0.003,
      PRICE_PREMIUM_EUR_PER_MINUTE: 0.0045,
    });
    expect(configuration.get(AccountConfig).DEFAULT_FREE_TRANSCRIPTIONS).toBe(3);
    expect(configuration.get(RateLimitConfig)).toMatchObject({
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: 100,
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: 30,
    });
  });

  it('converts strings from the environment', () => {
    const configuration = loadAppConfiguration({
      ...minimal,
      PORT: '8080',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ROLE: 'worker',
    });
    expect(configuration.get(HttpConfig).PORT).toBe(8080);
    expect(configuration.get(OutboundUrlConfig).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(configuration.get(ProcessConfig).ROLE).toBe('worker');
  });

  it('names every bad variable in one error', () => {
    const attempt = () =>
      loadAppConfiguration({
        JWT_SECRET: 'short',
        PORT: 'abc',
        ROLE: 'boss',
        DATABASE_URL: 'mysql://x',
        MINIMUM_BALANCE_EUR: '-1',
      });
    expect(attempt).toThrow(ConfigValidationError);
    try {
      attempt();
    } catch (error) {
      const message = (error as Error).message;
      for (const name of ['JWT_SECRET', 'PORT', 'ROLE', 'DATABASE_URL', 'MINIMUM_BALANCE_EUR']) {
        expect(message).toContain(`  ${name}=`);
      }
    }
  });

  const trustProxy = (value?: string) =>
    loadAppConfiguration({ ...minimal, TRUST_PROXY: value }).get(HttpConfig).TRUST_PROXY;
  const billingEnabled = (value?: string) =>
    loadAppConfiguration({ ...minimal, BILLING_ENABLED: value }).get(BillingConfig).BILLING_ENABLED;
  const adminToken = (value?: string) =>
    loadAppConfiguration({ ...minimal, ADMIN_TOKEN: value }).get(AdminConfig).ADMIN_TOKEN;

  it('reads TRUST_PROXY as false, a hop count or a list of addresses, and refuses `true` and bad ranges', () => {
    expect(trustProxy()).toBe(false);
    expect(trustProxy('false')).toBe(false);
    expect(trustProxy('2')).toBe(2);
    expect(trustProxy('10.0.0.0/8, 192.0.2.7,loopback, ::1')).toEqual([
      '10.0.0.0/8',
      '192.0.2.7',
      'loopback',
      '::1',
    ]);
    for (const bad of ['true', '10.0.0.0/33', 'fd00::/129', 'proxy.example', '10.0.0.0/8/1', '11']) {
      expect(() => trustProxy(bad)).toThrow(/TRUST_PROXY/);
    }
  });

  it('bills by default; BILLING_ENABLED takes true or false and refuses anything else', () => {
    expect(billingEnabled()).toBe(true);
    for (const on of ['true', 'TRUE', '1', 'yes']) {
      expect(billingEnabled(on)).toBe(true);
    }
    for (const off of ['false', 'False', '0', 'no', ' false ']) {
      expect(billingEnabled(off)).toBe(false);
    }
    // A money switch never silently picks a side: empty and typos stop the boot.
    for (const bad of ['', 'off', 'ture', 'disabled', '2']) {
      expect(() => billingEnabled(bad)).toThrow(/BILLING_ENABLED.*true or false/);
    }
  });

  it('takes an ADMIN_TOKEN of 32 characters or more, and none by default', () => {
    expect(adminToken()).toBeUndefined();
    expect(adminToken('a'.repeat(32))).toBe('a'.repeat(32));
    expect(() => adminToken('a'.repeat(31))).toThrow(/ADMIN_TOKEN/);
  });

  it('requires JWT_SECRET', () => {
    expect(() => loadAppConfiguration({})).toThrow(/JWT_SECRET/);
  });
});

describe('.env.example', () => {
  const { readFileSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
  const { join } = jest.requireActual<typeof import('node:path')>('node:path');
  const text: string = readFileSync(join(__dirname, '..', '.env.example'), 'utf8');
  const entries = Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

  it('is a valid configuration once its placeholder JWT_SECRET is replaced (production refuses it)', () => {
    expect(() => loadAppConfiguration(entries)).toThrow(/JWT_SECRET.*placeholder/);
    expect(() => loadAppConfiguration({ ...entries, JWT_SECRET: 'x'.repeat(32) })).not.toThrow();
    expect(() => loadAppConfiguration({ ...entries, NODE_ENV: 'development' })).not.toThrow();
  });

  it('documents every setting (set or commented out)', () => {
    for (const name of loadAppConfiguration(minimal).variableNames()) {
      expect({ name, documented: new RegExp(`^#? ?${name}=`, 'm').test(text) }).toEqual({
        name,
        documented: true,
      });
    }
  });
});
