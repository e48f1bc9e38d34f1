import { ConfigValidationError, loadAppConfig } from './app-config';

const minimal = { JWT_SECRET: 'x'.repeat(32) };

describe('loadAppConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadAppConfig(minimal);
    expect(config).toMatchObject({
      ROLE: 'all',
      PORT: 3000,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
      PRICE_STANDARD_EUR_PER_MINUTE: 0.003,
      PRICE_PREMIUM_EUR_PER_MINUTE: 0.0045,
      DEFAULT_FREE_TRANSCRIPTIONS: 3,
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: 100,
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: 30,
    });
  });

  it('converts strings from the environment', () => {
    const config = loadAppConfig({
      ...minimal,
      PORT: '8080',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ROLE: 'worker',
    });
    expect(config.PORT).toBe(8080);
    expect(config.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(config.ROLE).toBe('worker');
  });

  it('names every bad variable in one error', () => {
    const attempt = () =>
      loadAppConfig({
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

  it('reads TRUST_PROXY as false, a hop count or a list of addresses, and refuses `true` and bad ranges', () => {
    expect(loadAppConfig(minimal).TRUST_PROXY).toBe(false);
    expect(loadAppConfig({ ...minimal, TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadAppConfig({ ...minimal, TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(
      loadAppConfig({ ...minimal, TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,loopback, ::1' }).TRUST_PROXY,
    ).toEqual(['10.0.0.0/8', '192.0.2.7', 'loopback', '::1']);
    for (const bad of ['true', '10.0.0.0/33', 'fd00::/129', 'proxy.example', '10.0.0.0/8/1', '11']) {
      expect(() => loadAppConfig({ ...minimal, TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
    }
  });

  it('bills by default; BILLING_ENABLED takes true or false and refuses anything else', () => {
    expect(loadAppConfig(minimal).BILLING_ENABLED).toBe(true);
    for (const on of ['true', 'TRUE', '1', 'yes']) {
      expect(loadAppConfig({ ...minimal, BILLING_ENABLED: on }).BILLING_ENABLED).toBe(true);
    }
    for (const off of ['false', 'False', '0', 'no', ' false ']) {
      expect(loadAppConfig({ ...minimal, BILLING_ENABLED: off }).BILLING_ENABLED).toBe(false);
    }
    // A money switch never silently picks a side: empty and typos stop the boot.
    for (const bad of ['', 'off', 'ture', 'disabled', '2']) {
      expect(() => loadAppConfig({ ...minimal, BILLING_ENABLED: bad })).toThrow(
        /BILLING_ENABLED.*true or false/,
      );
    }
  });

  it('takes an ADMIN_TOKEN of 32 characters or more, and none by default', () => {
    expect(loadAppConfig(minimal).ADMIN_TOKEN).toBeUndefined();
    expect(loadAppConfig({ ...minimal, ADMIN_TOKEN: 'a'.repeat(32) }).ADMIN_TOKEN).toBe('a'.repeat(32));
    expect(() => loadAppConfig({ ...minimal, ADMIN_TOKEN: 'a'.repeat(31) })).toThrow(/ADMIN_TOKEN/);
  });

  it('requires JWT_SECRET', () => {
    expect(() => loadAppConfig({})).toThrow(/JWT_SECRET/);
  });
});

describe('.env.example', () => {
  const { readFileSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
  const { join } = jest.requireActual<typeof import('node:path')>('node:path');
  const text: string = readFileSync(join(__dirname, '..', '..', '.env.example'), 'utf8');
  const entries = Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

  it('is a valid configuration once its placeholder JWT_SECRET is replaced (production refuses it)', () => {
    expect(() => loadAppConfig(entries)).toThrow(/JWT_SECRET.*placeholder/);
    expect(() => loadAppConfig({ ...entries, JWT_SECRET: 'x'.repeat(32) })).not.toThrow();
    expect(() => loadAppConfig({ ...entries, NODE_ENV: 'development' })).not.toThrow();
  });

  it('documents every setting (set or commented out)', () => {
    for (const name of Object.keys(loadAppConfig(minimal))) {
      expect({ name, documented: new RegExp(`^#? ?${name}=`, 'm').test(text) }).toEqual({
        name,
        documented: true,
      });
    }
  });
});
