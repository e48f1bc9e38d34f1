import { clientNetwork, keyNetwork } from './client-network';

describe('clientNetwork', () => {
  it('keeps IPv4 addresses, and unwraps IPv4-mapped IPv6 ones', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const network = '2001:db8:1:2::/64';
    for (const address of [
      '2001:db8:1:2::1',
      '2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd',
      '2001:DB8:1:2:ffff::',
      '2001:db8:1:2::5%eth0',
      '2001:db8:1:2:0:0:198.51.100.1',
    ]) {
      expect(clientNetwork(address)).toBe(network);
    }
    expect(clientNetwork('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    expect(clientNetwork('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('leaves anything that is not an address as it is', () => {
    expect(clientNetwork('unknown')).toBe('unknown');
  });
});

describe('keyNetwork', () => {
  it('remembers an IPv4 address by its /24 and an IPv6 one by its /64', () => {
    expect(keyNetwork('203.0.113.7')).toBe('203.0.113.0/24');
    expect(keyNetwork('203.0.113.250')).toBe('203.0.113.0/24');
    expect(keyNetwork('::ffff:198.51.100.9')).toBe('198.51.100.0/24');
    expect(keyNetwork('2001:db8:1:2::99')).toBe('2001:db8:1:2::/64');
  });

  it('is null for what is not an address', () => {
    expect(keyNetwork('unknown')).toBeNull();
    expect(keyNetwork('')).toBeNull();
  });
});
