import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Secrets handed to callers have the shape `<kind>_<id>_<secret>`: the public `id` finds the
 * stored record, the whole string is compared (as a SHA-256 hash, in constant time) with
 * the stored hash. Only hashes are ever stored.
 *
 * - `gsk`: account API key (id = the key id without `key_`)
 * - `gsa`: OAuth access token (id = the token id)
 * - `gsr`: OAuth refresh token (id = the grant id without `grant_`)
 * - `gsc`: OAuth authorization code (id = the grant id without `grant_`)
 */
export type CredentialKind = 'gsk' | 'gsa' | 'gsr' | 'gsc';

const SHAPE = /^(gsk|gsa|gsr|gsc)_([0-9a-z]{10,64})_([A-Za-z0-9_-]{20,128})$/;

export function formatCredential(kind: CredentialKind, id: string, secret: string): string {
  return `${kind}_${id}_${secret}`;
}

export function parseCredential(value: unknown): { kind: CredentialKind; id: string } | null {
  if (typeof value !== 'string' || value.length > 250) return null;
  const m = SHAPE.exec(value);
  return m ? { kind: m[1] as CredentialKind, id: m[2] } : null;
}

/** SHA-256 of a high-entropy secret, lowercase hex (secrets are random; no salt needed). */
export function hashSecret(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(value: string, storedHash: string | null | undefined): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(hashSecret(value), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Strips the type prefix of an id: `key_01abc` → `01abc`. */
export const idBody = (id: string): string => id.slice(id.indexOf('_') + 1);
