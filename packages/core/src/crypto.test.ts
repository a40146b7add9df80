import { decryptSecret, deriveKey, encryptSecret, hashPassword, safeEqual, verifyPassword } from './crypto';

describe('crypto helpers', () => {
  test('when deriving sub-keys, then each purpose gets its own stable key', () => {
    const session = deriveKey('master secret of sufficient length!', 'session');
    expect(session).toHaveLength(32);
    expect(deriveKey('master secret of sufficient length!', 'session').equals(session)).toBe(true);
    expect(deriveKey('master secret of sufficient length!', 'tracking').equals(session)).toBe(false);
    expect(deriveKey('another master secret, also long!!', 'session').equals(session)).toBe(false);
  });

  test('when a password is hashed, then only that password verifies', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored).not.toContain('correct horse');
    await expect(verifyPassword('correct horse', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horsE', stored)).resolves.toBe(false);
    await expect(verifyPassword('correct horse', 'garbage')).resolves.toBe(false);
  });

  test('when a secret is sealed, then it opens with the same key only, and tampering is detected', () => {
    const key = deriveKey('master secret of sufficient length!', 'encryption');
    const sealed = encryptSecret(key, 'whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(encryptSecret(key, 'whsec_abc')).not.toBe(sealed);
    expect(decryptSecret(key, sealed)).toBe('whsec_abc');
    expect(() => decryptSecret(deriveKey('other master secret, long enough', 'encryption'), sealed)).toThrow();
    const [v, iv, tag, ct] = sealed.split('.');
    const flipped = Buffer.from(ct!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => decryptSecret(key, [v, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
  });

  test('when comparing strings, then safeEqual is exact', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
