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
  /**
   * Renews for `ttlMs` from now each of `keys` whose claim is still `owner`'s (expired or not,
   * as long as nobody took it since), in one step for the whole set rather than one write per
   * key. Returns the keys `owner` holds now; the others were taken or released.
   */
  abstract renew(keys: readonly string[], owner: string, ttlMs: number): Promise<Set<string>>;
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

/**
 * Runs `fn` while holding `key` (a mutex across processes): waits for the key up to `waitMs`
 * (polling), then throws `LeaseBusyError`. The lease lives `ttlMs`, so a holder that dies
 * blocks the others at most that long; `fn` must finish well within it.
 */
export async function withLease<T>(leases: LeaseStore, key: string, fn: () => Promise<T>, options: { ttlMs: number; waitMs: number }): Promise<T> {
  const owner = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  const until = Date.now() + options.waitMs;
  for (let delay = 2; !(await leases.acquire(key, owner, options.ttlMs)); delay = Math.min(delay * 2, 50)) {
    if (Date.now() > until) throw new LeaseBusyError(key);
    await new Promise((r) => setTimeout(r, delay));
  }
  try {
    return await fn();
  } finally {
    await leases.release(key, owner);
  }
}

export class LeaseBusyError extends Error {
  constructor(readonly key: string) {
    super(`${key} is held by another process`);
    this.name = 'LeaseBusyError';
  }
}
