import { hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from './password-hasher';

describe('password hashing', () => {
  it('hashes with argon2id and verifies only the same password', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await expect(verifyPassword(stored, 'correct horse battery staple')).resolves.toBe(true);
    await expect(verifyPassword(stored, 'correct horse battery stapl')).resolves.toBe(false);
  });

  it('treats a malformed stored hash as a mismatch', async () => {
    await expect(verifyPassword('not-a-hash', 'whatever password')).resolves.toBe(false);
    await expect(verifyAgainstDummy('whatever password')).resolves.toBe(false);
  });

  it.each([
    ['short', 'eleven char', false],
    ['twelve characters', 'twelve chars', true],
    ['counted in characters, not bytes', 'ééééééééééé', false],
    ['too long', 'x'.repeat(1025), false],
  ])('%s', (_name, password, accepted) => {
    expect(passwordProblem(password) === null).toBe(accepted);
  });
});
