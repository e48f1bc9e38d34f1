import { SecretBox } from './secret-box';

const SECRET = 'a-server-secret-that-is-long-enough-0123456789';

describe('SecretBox', () => {
  it('opens what it sealed, and the sealed text does not contain the plaintext', () => {
    const box = new SecretBox(SECRET, 'sso client secret');
    const sealed = box.seal('client-secret-value');
    expect(sealed).not.toContain('client-secret-value');
    expect(box.open(sealed)).toBe('client-secret-value');
    expect(box.seal('client-secret-value')).not.toBe(sealed);
  });

  it('refuses a box of another label or server secret, and an altered one', () => {
    const sealed = new SecretBox(SECRET, 'sso client secret').seal('x');
    expect(new SecretBox(SECRET, 'provider refresh token').open(sealed)).toBeNull();
    expect(new SecretBox(`${SECRET}!`, 'sso client secret').open(sealed)).toBeNull();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('y').toString('base64url');
    expect(new SecretBox(SECRET, 'sso client secret').open(parts.join('.'))).toBeNull();
    expect(new SecretBox(SECRET, 'sso client secret').open('garbage')).toBeNull();
  });
});
