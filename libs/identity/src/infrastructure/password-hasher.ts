import { Injectable } from '@nestjs/common';
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scryptAsync = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));

/** Slow password hashing for account logins (the consent page). Port: swap for argon2 if wanted. */
export abstract class PasswordHasher {
  abstract hash(password: string): Promise<string>;
  abstract verify(password: string, stored: string | null): Promise<boolean>;
}

/**
 * scrypt from node:crypto, random 16-byte salt, N = 2^15, r = 8, p = 1 (about 32 MiB and
 * tens of milliseconds per hash). Stored as `scrypt$N$r$p$salt$hash` (base64url), so the
 * parameters can be raised later without breaking old hashes.
 */
@Injectable()
export class ScryptPasswordHasher extends PasswordHasher {
  constructor(private readonly params = { N: 2 ** 15, r: 8, p: 1 }) {
    super();
  }

  override async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const { N, r, p } = this.params;
    const key = await scryptAsync(password.normalize('NFKC'), salt, 32, { N, r, p, maxmem: 256 * N * r });
    return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  override async verify(password: string, stored: string | null): Promise<boolean> {
    const parts = (stored ?? '').split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') {
      // Same cost as a real check, so timing does not tell whether the account exists.
      await this.hash(password);
      return false;
    }
    const [, n, r, p, salt, hash] = parts;
    const expected = Buffer.from(hash, 'base64url');
    const N = Number(n);
    const key = await scryptAsync(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, {
      N,
      r: Number(r),
      p: Number(p),
      maxmem: 256 * N * Number(r),
    });
    return key.length === expected.length && timingSafeEqual(key, expected);
  }
}
