import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leaseStoreContract } from '@gensvc/event-sourcing/testing/contracts/lease-store.contract';
import { SqliteReadStore } from '../read-store/sqlite-read-store';
import { MongoReadStore } from '../read-store/mongo-read-store';
import { ReadStoreLeaseStore } from './read-store-lease-store';
import { SqliteLeaseStore } from './sqlite-lease-store';

function clock() {
  let t = Date.parse('2026-06-01T00:00:00Z');
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

leaseStoreContract('SQLite file (embedded; two connections as two processes)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-leases-'));
  const c = clock();
  const file = join(dir, 'leases.db');
  return {
    a: new SqliteLeaseStore(file, c.now),
    b: new SqliteLeaseStore(file, c.now),
    advance: c.advance,
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('SqliteLeaseStore renewals', () => {
  it('renews a set larger than one statement takes (chunks of 500 keys, one transaction)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gensvc-leases-'));
    const c = clock();
    const a = new SqliteLeaseStore(join(dir, 'leases.db'), c.now);
    const b = new SqliteLeaseStore(join(dir, 'leases.db'), c.now);
    try {
      const keys = Array.from({ length: 1_234 }, (_, i) => `k${i}`);
      for (const k of keys) expect(await a.acquire(k, 'p1', 1_000)).toBe(true);
      expect(await b.acquire('k1233', 'p2', 1_000)).toBe(false);
      c.advance(1_000);
      expect(await b.acquire('k1000', 'p2', 1_000)).toBe(true); // expired and taken meanwhile
      const held = await b.renew(keys, 'p1', 1_000);
      expect(held.size).toBe(keys.length - 1);
      expect(held.has('k1000')).toBe(false);
      c.advance(900);
      expect(await b.acquire('k1233', 'p2', 1_000)).toBe(false);
      expect(await b.acquire('k0', 'p2', 1_000)).toBe(false);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

leaseStoreContract('read store (in-memory, one process)', async () => {
  const c = clock();
  const store = SqliteReadStore.open(':memory:');
  return { a: new ReadStoreLeaseStore(store, 'leases', c.now), b: new ReadStoreLeaseStore(store, 'leases', c.now), advance: c.advance };
});

// Against the MongoDB protocol only when MONGO_URL is set (scripts/test-servers.sh start starts FerretDB; see README "Tests").
const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) {
  leaseStoreContract(`read store on the MongoDB protocol (${mongoUrl.replace(/\/\/[^@/]*@/, '//***@')}; two clients)`, async () => {
    const c = clock();
    const db = process.env.MONGO_DB || 'gensvc_contract';
    const one = await MongoReadStore.connect(mongoUrl, db);
    const two = await MongoReadStore.connect(mongoUrl, db);
    return {
      a: new ReadStoreLeaseStore(one, 'leases_contract', c.now),
      b: new ReadStoreLeaseStore(two, 'leases_contract', c.now),
      advance: c.advance,
      cleanup: async () => {
        await Promise.allSettled([one.close(), two.close()]);
      },
    };
  });
}
