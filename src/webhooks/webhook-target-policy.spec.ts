import { isPublicAddress, WebhookTargetPolicy } from './webhook-target-policy';

describe('isPublicAddress (SSRF guard)', () => {
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.216.34'])(
    '%s is public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '224.0.0.1',
    '198.18.0.1',
    'not-an-ip',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  // IPv6 forms that embed an IPv4 address are judged by the IPv4 address they lead to.
  it.each([
    ['6to4 of 127.0.0.1', '2002:7f00:1::'],
    ['6to4 of 10.0.0.1', '2002:a00:1::1'],
    ['Teredo, client 127.0.0.1', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['Teredo, server 10.0.0.1', '2001:0:a00:1:8000:63bf:a3f7:9bf6'],
    ['local-use NAT64', '64:ff9b:1::7f00:1'],
    ['well-known NAT64 of 127.0.0.1', '64:ff9b::7f00:1'],
    ['IPv4-compatible 127.0.0.1', '::7f00:1'],
    ['IPv4-compatible 169.254.169.254', '::169.254.169.254'],
    ['IPv4-translated 127.0.0.1', '::ffff:0:7f00:1'],
    ['IPv4-mapped 127.0.0.1', '::ffff:127.0.0.1'],
    ['IPv4-mapped 127.0.0.1, hex', '::ffff:7f00:1'],
    ['discard-only', '100::1'],
    ['documentation', '2001:db8::1'],
  ])('%s (%s) is not public', (_form, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['6to4 of 93.184.216.34', '2002:5db8:d822::1'],
    ['Teredo, server and client public', '2001:0:5db8:d822:8000:63bf:a3f7:9bf6'],
    ['well-known NAT64 of 8.8.8.8', '64:ff9b::808:808'],
  ])('%s (%s) is public', (_form, address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('WebhookTargetPolicy', () => {
  const policy = (allowPrivate: boolean) =>
    new WebhookTargetPolicy({ WEBHOOK_ALLOW_PRIVATE_TARGETS: allowPrivate });

  it('requires https by default, and allows http only when private targets are allowed', () => {
    expect(policy(false).checkUrl('http://93.184.216.34/hook')).toEqual({
      allowed: false,
      reason: 'must use https (deliveries are HTTPS POSTs)',
    });
    expect(policy(false).checkUrl('https://93.184.216.34/hook')).toEqual({ allowed: true });
    expect(policy(true).checkUrl('http://127.0.0.1:9/hook')).toEqual({ allowed: true });
    expect(policy(true).checkUrl('ftp://127.0.0.1/hook')).toMatchObject({ allowed: false });
  });

  it('refuses an IP literal host in a non-public range without resolving anything', () => {
    expect(policy(false).checkUrl('https://[2002:7f00:1::]/hook')).toEqual({
      allowed: false,
      reason: 'resolves to 2002:7f00:1::, a loopback, private, link-local or reserved address',
    });
    expect(policy(false).checkUrl('https://0x7f.1/hook')).toMatchObject({ allowed: false });
  });

  it('refuses credentials in the URL', () => {
    expect(policy(false).checkUrl('https://user:pw@example.org/')).toEqual({
      allowed: false,
      reason: 'must not contain credentials',
    });
  });

  it('refuses a non-ASCII URL at registration, naming its ASCII form', async () => {
    expect(await policy(true).check('https://bücher.example/präsentation?q=日本')).toEqual({
      allowed: false,
      reason:
        'must be ASCII (RFC 3986): send https://xn--bcher-kva.example/pr%C3%A4sentation?q=%E6%97%A5%E6%9C%AC',
    });
  });

  it.each([
    'https://example.org/a|b',
    'https://example.org/?a={b}',
    'https://example.org/a^b',
    'https://example.org/a%zz',
    'https://example.org/a\\b',
    'https://example.org/a b',
  ])('refuses %s at registration, which is not a valid RFC 3986 URI', async (url) => {
    expect(await policy(true).check(url)).toEqual({
      allowed: false,
      reason: 'must be a valid URI (RFC 3986)',
    });
  });

  it('accepts an RFC 3986 URI with an IPv6 host, percent-escapes and a fragment as it is', async () => {
    expect(await policy(true).check('https://[2606:4700::1]:8443/a%20b/c?d=e&f=g#h')).toEqual({
      allowed: true,
    });
  });
});
