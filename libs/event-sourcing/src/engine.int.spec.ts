import { Logger } from '@nestjs/common';
import { ReadStoreLeaseStore, SqliteCheckpointStore, SqliteEventStore, SqliteReadStore } from '@gensvc/storage';
import { SubscriptionEngine } from './engine';
import { documentProjection, type Projection } from './projection';
import type { ReadStore } from './read-store/read-store.port';
import { added, discovery, Recording, subscriptionEngineProjections } from './testing/subscription-engine-projections';

/** The embedded stores: the read store has transactions, so projections run in the transactional loop. */
subscriptionEngineProjections('the SQLite stores (a read store with transactions)', () => {
  const events = new SqliteEventStore(':memory:');
  const readStore = SqliteReadStore.open(':memory:');
  return {
    events,
    readStore,
    checkpoints: new SqliteCheckpointStore(events.connection),
    leases: new ReadStoreLeaseStore(readStore),
    appendElsewhere: async (stream, newEvents) => {
      // Through the connection directly, bypassing this store's notification.
      const insert = events.connection.prepare('INSERT INTO events (id, stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
      const revision = BigInt((await events.readStream(stream)).length);
      newEvents.forEach((e, i) => insert.run(`x${stream}${i}`, stream, revision + BigInt(i), e.type, JSON.stringify(e.data), '{"schemaVersion":1,"occurredAt":"2026-01-01T00:00:00Z"}'));
      // like a commit of another process, it is seen by reads from the next event-loop turn on
      await new Promise((r) => setImmediate(r));
    },
    close: async () => {
      await events.close();
      await readStore.close();
    },
  };
});

describe('SubscriptionEngine filling an empty embedded read store', () => {
  it('builds the indexes of projections that never ran after their rows, before start() resolves', async () => {
    Logger.overrideLogger(false);
    const events = new SqliteEventStore(':memory:');
    const store = SqliteReadStore.open(':memory:');
    const indexes = () => (store.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND sql LIKE '%json_extract%'").get() as { n: number }).n;
    const seen: number[] = [];
    const totals = documentProjection<{ count: number; last: string }>({
      name: 'order-totals',
      collection: 'order_totals',
      handles: ['ItemAdded'],
      documentId: (e) => e.streamName,
      indexes: [{ keys: { last: 1, count: -1 } }],
      evolve: (doc, e) => {
        seen.push(indexes());
        return { count: (doc?.count ?? 0) + 1, last: (e.data as { item: string }).item };
      },
    });
    for (let i = 0; i < 30; i++) await events.appendToStream(`order-${i % 7}`, [added(`item-${i}`)]);
    const e = new SubscriptionEngine(events, store, new SqliteCheckpointStore(events.connection), discovery([totals], []), new ReadStoreLeaseStore(store));
    await e.start();
    expect(seen).toHaveLength(30);
    expect(new Set(seen)).toEqual(new Set([0]));
    expect(indexes()).toBe(1);
    expect((await store.collection('order_totals').find({ last: 'item-29' })).map((d) => [d._id, d.count])).toEqual([['order-1', 5]]);
    // later events are applied with the index in place
    const r = await events.appendToStream('order-1', [added('item-30')]);
    await e.waitFor(r.position);
    expect(seen[30]).toBe(1);
    await e.stop();
    await events.close();
    await store.close();
  });
});

/** On the SQLite read store, which stores each batch's checkpoints with its documents. */
describe('SubscriptionEngine on the SQLite read store: checkpoints', () => {
  let events: SqliteEventStore;
  let readStore: ReadStore;
  let checkpoints: SqliteCheckpointStore;
  const engines: SubscriptionEngine[] = [];
  const engine = (projections: Projection[]) => {
    const e = new SubscriptionEngine(events, readStore, checkpoints, discovery(projections, []), new ReadStoreLeaseStore(readStore));
    engines.push(e);
    return e;
  };
  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    events = new SqliteEventStore(':memory:');
    readStore = SqliteReadStore.open(':memory:');
    checkpoints = new SqliteCheckpointStore(events.connection);
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.stop();
    await events.close();
  });

  it('stores the checkpoint of a projection that applied an event with that batch, the others by the time it stops', async () => {
    const cp = async (name: string) => (await readStore.collection<{ _id: string; position: string }>('projection_checkpoints').findOne({ _id: name }))?.position;
    const applying = new Recording('applying');
    const skipping = Object.assign(new Recording('skipping'), { handles: ['SomethingElse'] });
    const first = engine([applying, skipping]);
    await first.start();
    let last = 0n;
    for (let i = 0; i < 5; i++) {
      last = (await events.appendToStream('order-1', [added(`i${i}`)])).position;
      await first.waitFor(last);
      expect(await cp('applying')).toBe(String(last));
    }
    await first.stop();
    expect(await cp('skipping')).toBe(String(last));
    // another engine (a restart, another process) continues from them: nothing applied twice
    const again = new Recording('applying');
    const second = engine([again, Object.assign(new Recording('skipping'), { handles: ['SomethingElse'] })]);
    await second.start();
    expect(again.applied).toEqual([]);
    const next = await events.appendToStream('order-2', [added('j')]);
    await second.waitFor(next.position);
    expect(again.applied).toEqual([next.position]);
    expect(applying.applied).toHaveLength(5);
  });
});
