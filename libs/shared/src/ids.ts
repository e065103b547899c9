import { randomBytes } from 'node:crypto';
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
  | 'sess';

const ulid = monotonicFactory();

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
