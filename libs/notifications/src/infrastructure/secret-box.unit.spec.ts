import { SecretBox } from './secret-box';

describe('endpoint secrets at rest', () => {
  const box = new SecretBox('a-key-of-at-least-thirty-two-characters!');

  it('given a sealed secret, when opened with the same key, then it is the secret; the sealed text does not contain it', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(box.open(sealed)).toBe(secret);
    expect(box.seal(secret)).not.toBe(sealed); // a fresh IV each time
  });

  it('given another key or an altered value, when opened, then it throws', () => {
    const sealed = box.seal('whsec_abc');
    expect(() => new SecretBox('another-key-of-at-least-thirty-two-chars').open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[2] = Buffer.from('whsec_xyz').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => box.open('plain')).toThrow();
  });
});
