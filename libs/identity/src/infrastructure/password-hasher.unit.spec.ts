import { ScryptPasswordHasher } from './password-hasher';

describe('scrypt password hasher', () => {
  const hasher = new ScryptPasswordHasher({ N: 2 ** 10, r: 8, p: 1 });

  it('verifies the right password only, with a random salt per hash', async () => {
    const a = await hasher.hash('correct horse');
    const b = await hasher.hash('correct horse');
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
    expect(await hasher.verify('correct horse', a)).toBe(true);
    expect(await hasher.verify('correct horsE', a)).toBe(false);
    expect(await hasher.verify('correct horse', null)).toBe(false);
    expect(await hasher.verify('correct horse', 'garbage')).toBe(false);
  });

  it('keeps verifying hashes made with other parameters', async () => {
    const old = await new ScryptPasswordHasher({ N: 2 ** 11, r: 8, p: 1 }).hash('pw');
    expect(await hasher.verify('pw', old)).toBe(true);
  });
});
