/**
 * Leases: exclusive, expiring claims on a key, shared by every process on the same stores.
 * They make work happen once across processes (a supplier job steps in one process at a
 * time, a background timer fires in one process) and count scarce slots (the spec's upload
 * receive limits) across processes. A lease that is not renewed or released expires, so the
 * claim of a killed process frees itself after its time to live.
 *
 * Time is the machine's wall clock (`Date.now()` by default): every process that shares the
 * stores must agree on it to within a small fraction of the shortest time to live.
 */
export abstract class LeaseStore {
  /**
   * Claims `key` for `owner` until `ttlMs` from now. Succeeds when nobody holds it, when the
   * previous claim expired, or when `owner` already holds it (a renewal); atomic across
   * processes. Returns whether `owner` now holds the key.
   */
  abstract acquire(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives `key` back if `owner` holds it (idempotent). */
  abstract release(key: string, owner: string): Promise<void>;
  /** Current holder of `key`, or null when free or expired. */
  abstract holder(key: string): Promise<{ owner: string; expiresAt: number } | null>;
  abstract close(): Promise<void>;
}

/**
 * Takes one of `limit` slots named `${group}#0` ... for `owner` (a counting semaphore built
 * from single leases). Returns the slot's key, or null when all are held.
 */
export async function acquireSlot(leases: LeaseStore, group: string, limit: number, owner: string, ttlMs: number): Promise<string | null> {
  // Start at a random slot so concurrent callers rarely contend for the same row.
  const start = Math.floor(Math.random() * limit);
  for (let i = 0; i < limit; i++) {
    const key = `${group}#${(start + i) % limit}`;
    if (await leases.acquire(key, owner, ttlMs)) return key;
  }
  return null;
}
