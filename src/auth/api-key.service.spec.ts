import { generateApiKey, hashApiKey } from './api-key.service';

describe('API key material', () => {
  it('is svc_live_ plus 40 base62 characters, different every time', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
  });

  it('uses every base62 character (no modulo-biased alphabet truncation)', () => {
    const seen = new Set(Array.from({ length: 300 }, generateApiKey).join('').slice(0));
    expect(
      [...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'].every((c) => seen.has(c)),
    ).toBe(true);
  });

  it('hashes with SHA-256 hex', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
