import { networksAllow, parseCidr, restrictToAllowedNetworks } from './allowed-networks';
import type { Principal } from '../common/principal/principal';

describe('allowed networks of an API key', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['192.168.1.7', '192.168.1.7/32'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['::1', '::1/128'],
  ])('accepts %s as %s', (text, canonical) => expect(parseCidr(text)).toBe(canonical));

  it.each(['10.0.0.1/8', '10.0.0.0/33', 'example.com/8', '10.0.0.0/8/1', '', '2001:db8::1/32', '10.0.0.0/x'])(
    'refuses %j',
    (text) => expect(parseCidr(text)).toBeNull(),
  );

  it('matches addresses inside, IPv4-mapped IPv6 as its IPv4, and nothing without an address', () => {
    expect(networksAllow(['10.0.0.0/8'], '10.200.3.4')).toBe(true);
    expect(networksAllow(['10.0.0.0/8'], '::ffff:10.200.3.4')).toBe(true);
    expect(networksAllow(['10.0.0.0/8'], '11.0.0.1')).toBe(false);
    expect(networksAllow(['2001:db8::/32'], '2001:db8:1::5')).toBe(true);
    expect(networksAllow(['2001:db8::/32'], '2001:db9::5')).toBe(false);
    expect(networksAllow(['10.0.0.0/8'], undefined)).toBe(false);
  });

  it('turns a key used from elsewhere into a 403, and leaves keys without networks alone', () => {
    const principal = (allowedNetworks?: string[]): Principal => ({
      workspaceId: 'w',
      userId: null,
      credential: 'api-key',
      rateLimitKey: 'key:k',
      permissions: new Set(),
      ...(allowedNetworks ? { allowedNetworks } : {}),
    });
    const outside = restrictToAllowedNetworks(
      { kind: 'authenticated', principal: principal(['10.0.0.0/8']) },
      '127.0.0.1',
    );
    expect(outside.kind).toBe('failed');
    expect(outside.kind === 'failed' && outside.problem.status).toBe(403);
    expect(
      restrictToAllowedNetworks({ kind: 'authenticated', principal: principal(['127.0.0.0/8']) }, '127.0.0.1')
        .kind,
    ).toBe('authenticated');
    expect(
      restrictToAllowedNetworks({ kind: 'authenticated', principal: principal() }, '127.0.0.1').kind,
    ).toBe('authenticated');
  });
});
