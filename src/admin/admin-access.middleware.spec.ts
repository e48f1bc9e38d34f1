import { presentedAdminToken } from './admin-access.middleware';

const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

describe('presentedAdminToken', () => {
  it('reads a Bearer token (any case of the scheme)', () => {
    expect(presentedAdminToken('Bearer abc')).toBe('abc');
    expect(presentedAdminToken('bearer\tabc')).toBe('abc');
  });

  it('reads the password of HTTP Basic, whatever the user name; the password may contain colons', () => {
    expect(presentedAdminToken(basic('operator:s3cret'))).toBe('s3cret');
    expect(presentedAdminToken(basic(':s3cret'))).toBe('s3cret');
    expect(presentedAdminToken(basic('operator:a:b'))).toBe('a:b');
    expect(presentedAdminToken(`BASIC ${Buffer.from('x:y').toString('base64')}`)).toBe('y');
  });

  it('finds none without a header, with another scheme, or with Basic credentials lacking a colon', () => {
    expect(presentedAdminToken(undefined)).toBeNull();
    expect(presentedAdminToken('Digest abc')).toBeNull();
    expect(presentedAdminToken(basic('no-colon'))).toBeNull();
    expect(presentedAdminToken('Basic not*base64')).toBeNull();
  });
});
