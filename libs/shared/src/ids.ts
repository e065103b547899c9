import { randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Type prefixes of CONTRACT.md §2. */
export type IdPrefix =
  | 'acc'
  | 'key'
  | 'qt'
  | 'task'
  | 'up'
  | 'ast'
  | 'voice'
  | 'bill'
  | 'client'
  | 'grant'
  | 'evt'
  | 'sess'
  | 'whe'
  | 'whd'
  | 'msg';

/**
 * Random source for the ids' random part: bytes from the OS CSPRNG, drawn 4 KiB at a time
 * (ulid's default asks the OS for one byte per character). A byte / 256 is uniform over
 * [0, 1) in steps that ulid's 32-letter alphabet divides exactly.
 */
const pool = Buffer.alloc(4096);
let next = pool.length;
function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++] / 256;
}

const ulid = monotonicFactory(pooledRandom);

/** Opaque, time-sortable id with a type prefix, e.g. `task_01JD3...`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** A high-entropy secret (API keys, tokens), URL-safe. */
export function newSecret(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return typeof id === 'string' && id.startsWith(`${prefix}_`) && id.length <= 100;
}
