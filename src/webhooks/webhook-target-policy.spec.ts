import { isPublicAddress } from './webhook-target-policy';

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
    'not-an-ip',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});
