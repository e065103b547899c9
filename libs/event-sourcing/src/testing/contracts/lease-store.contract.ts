import { randomUUID } from 'node:crypto';
import { acquireSlot, type LeaseStore } from '../../lease-store.port';

export interface LeaseStoreFixture {
  /** Two handles on the same shared leases (as two processes would hold them). */
  readonly a: LeaseStore;
  readonly b: LeaseStore;
  /** Moves the clock both handles read. */
  advance(ms: number): void;
  cleanup?(): Promise<void>;
}

/**
 * The lease store contract: exclusive, expiring, renewable claims, atomic across handles
 * on the same storage. Keys are unique per run, so it also runs against a shared server.
 */
export function leaseStoreContract(name: string, makeFixture: () => Promise<LeaseStoreFixture>): void {
  describe(`LeaseStore contract: ${name}`, () => {
    let f: LeaseStoreFixture;
    const run = `t${randomUUID().slice(0, 8)}`;
    let n = 0;
    const key = () => `${run}:${++n}`;

    beforeEach(async () => (f = await makeFixture()));
    afterEach(async () => {
      await f.a.close();
      await f.b.close();
      await f.cleanup?.();
    });

    it('gives a free key to the first owner only', async () => {
      const k = key();
      expect(await f.a.acquire(k, 'p1', 10_000)).toBe(true);
      expect(await f.b.acquire(k, 'p2', 10_000)).toBe(false);
      expect(await f.a.acquire(k, 'p3', 10_000)).toBe(false);
      expect(await f.b.holder(k)).toEqual({ owner: 'p1', expiresAt: expect.any(Number) });
    });

    it('renews for the holder and moves the expiry', async () => {
      const k = key();
      await f.a.acquire(k, 'p1', 1_000);
      const first = (await f.a.holder(k))!.expiresAt;
      f.advance(500);
      expect(await f.b.acquire(k, 'p1', 1_000)).toBe(true);
      expect((await f.a.holder(k))!.expiresAt).toBe(first + 500);
      f.advance(700);
      expect(await f.b.acquire(k, 'p2', 1_000)).toBe(false);
    });

    it('renews a set of keys at once: those still the owner\'s, expired or not, and says which', async () => {
      const [mine, late, taken, released, never] = [key(), key(), key(), key(), key()];
      for (const k of [mine, late, taken, released]) expect(await f.a.acquire(k, 'p1', 1_000)).toBe(true);
      await f.a.release(released, 'p1');
      f.advance(1_000);
      expect(await f.b.acquire(taken, 'p2', 1_000)).toBe(true); // expired, and taken by another
      f.advance(500);
      const held = await f.b.renew([mine, late, taken, released, never], 'p1', 1_000);
      expect([...held].sort()).toEqual([mine, late].sort());
      expect(await f.a.holder(mine)).toEqual({ owner: 'p1', expiresAt: expect.any(Number) });
      expect((await f.a.holder(taken))!.owner).toBe('p2');
      expect(await f.a.holder(released)).toBeNull();
      expect(await f.a.holder(never)).toBeNull();
      f.advance(999);
      expect(await f.a.acquire(mine, 'p2', 1_000)).toBe(false); // the renewal moved its expiry
      expect(await f.a.renew([], 'p1', 1_000)).toEqual(new Set());
    });

    it('frees an expired claim for another owner', async () => {
      const k = key();
      await f.a.acquire(k, 'p1', 1_000);
      f.advance(999);
      expect(await f.b.acquire(k, 'p2', 1_000)).toBe(false);
      f.advance(1);
      expect(await f.a.holder(k)).toBeNull();
      expect(await f.b.acquire(k, 'p2', 1_000)).toBe(true);
      expect((await f.a.holder(k))!.owner).toBe('p2');
    });

    it('releases only for the holder, idempotently', async () => {
      const k = key();
      await f.a.acquire(k, 'p1', 10_000);
      await f.b.release(k, 'p2');
      expect((await f.a.holder(k))!.owner).toBe('p1');
      await f.b.release(k, 'p1');
      await f.b.release(k, 'p1');
      expect(await f.a.holder(k)).toBeNull();
      expect(await f.a.acquire(k, 'p2', 10_000)).toBe(true);
    });

    it('lets exactly one of many racing owners win', async () => {
      const k = key();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? f.a : f.b).acquire(k, `racer${i}`, 10_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await f.a.holder(k))!.owner).toBe(`racer${winner}`);
    });

    it('counts slots across handles', async () => {
      const group = key();
      const s1 = await acquireSlot(f.a, group, 2, 'u1', 10_000);
      const s2 = await acquireSlot(f.b, group, 2, 'u2', 10_000);
      expect(s1).not.toBeNull();
      expect(s2).not.toBeNull();
      expect(s1).not.toBe(s2);
      expect(await acquireSlot(f.a, group, 2, 'u3', 10_000)).toBeNull();
      await f.a.release(s1!, 'u1');
      expect(await acquireSlot(f.b, group, 2, 'u3', 10_000)).toBe(s1);
      f.advance(10_000);
      expect(await acquireSlot(f.b, group, 2, 'u4', 10_000)).not.toBeNull();
    });
  });
}
