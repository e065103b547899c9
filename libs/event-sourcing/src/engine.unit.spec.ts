import { Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import type { LeaseStore } from './lease-store.port';
import { ReadStoreLeaseStore } from '@gensvc/storage';
import { ReadStore, type Doc } from './read-store/read-store.port';
import { SqliteReadStore } from '@gensvc/storage';
import { RequestContexts } from './request-context';
import { AsProjection, AsReactor, SubscriptionEngine } from './engine';
import { AppError, type RecordedEvent } from '@gensvc/kernel';
import { ProjectionLagError } from './projection-lag.error';
import { documentProjection, type Projection, type ProjectionTarget } from './projection';
import type { Reactor } from './reactor';
import { SqliteCheckpointStore, SqliteEventStore } from '@gensvc/storage';

/** Discovery as Nest would answer it for the given providers. */
function discovery(projections: Projection[], reactors: Reactor[]): DiscoveryService {
  return {
    getProviders: ({ metadataKey }: { metadataKey: string }) =>
      (metadataKey === AsProjection.KEY ? projections : metadataKey === AsReactor.KEY ? reactors : []).map((instance) => ({ instance })),
  } as unknown as DiscoveryService;
}

/** Counts per order, by a document projection (idempotent by position). */
const orderTotals = () =>
  documentProjection<{ count: number; last: string }>({
    name: 'order-totals',
    collection: 'order_totals',
    handles: ['ItemAdded'],
    documentId: (e) => e.streamName,
    evolve: (doc, e) => ({ count: (doc?.count ?? 0) + 1, last: (e.data as { item: string }).item }),
  });

/** A projection that records every delivery (to see redelivery and skipping). */
class Recording implements Projection {
  readonly collections = ['log'];
  readonly handles = ['ItemAdded'];
  readonly applied: bigint[] = [];
  constructor(readonly name = 'recording') {}
  async apply(event: RecordedEvent, target: ProjectionTarget): Promise<void> {
    this.applied.push(event.position);
    await target.collection('log').updateOne({ _id: this.name }, { $inc: { n: 1 } }, { upsert: true });
  }
}

const added = (item: string) => ({ type: 'ItemAdded', data: { item } });

/** The SQLite read store without its transactions: the engine treats it as it treats MongoDB. */
class WithoutTransactions extends ReadStore {
  constructor(private readonly inner: ReadStore) {
    super();
  }
  collection<T extends Doc = Doc>(name: string) {
    return this.inner.collection<T>(name);
  }
  renameCollection(from: string, to: string) {
    return this.inner.renameCollection(from, to);
  }
  listCollections() {
    return this.inner.listCollections();
  }
  ping() {
    return this.inner.ping();
  }
  close() {
    return this.inner.close();
  }
}

describe.each([
  ['a store with transactions (SQLite)', true],
  ['a store without transactions (as MongoDB)', false],
])('SubscriptionEngine on %s', (_label, transactional) => {
  let events: SqliteEventStore;
  let readStore: ReadStore;
  let checkpoints: SqliteCheckpointStore;
  const engines: SubscriptionEngine[] = [];
  const engine = (projections: Projection[], reactors: Reactor[] = [], leases: LeaseStore = new ReadStoreLeaseStore(readStore)) => {
    const e = new SubscriptionEngine(events, readStore, checkpoints, discovery(projections, reactors), leases);
    engines.push(e);
    return e;
  };

  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    events = new SqliteEventStore(':memory:');
    readStore = transactional ? SqliteReadStore.open(':memory:') : new WithoutTransactions(SqliteReadStore.open(':memory:'));
    checkpoints = new SqliteCheckpointStore(events.connection);
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.stop();
    await events.close();
  });

  describe('projections', () => {
    it('start() resolves after the projections caught up with the stored events', async () => {
      await events.appendToStream('order-1', [added('a'), added('b')]);
      await events.appendToStream('order-2', [added('c')]);
      await engine([orderTotals()]).start();
      const docs = await readStore.collection('order_totals').find({}, { sort: { _id: 1 } });
      expect(docs.map((d) => [d._id, d.count, d.last])).toEqual([
        ['order-1', 2, 'b'],
        ['order-2', 1, 'c'],
      ]);
    });

    it('waitFor(position) resolves once a new event is projected (read your writes)', async () => {
      const e = engine([orderTotals()]);
      await e.start();
      const r = await events.appendToStream('order-1', [added('a')]);
      await e.waitFor(r.position);
      expect(e.projectedPosition()).toBeGreaterThanOrEqual(r.position);
      expect((await readStore.collection('order_totals').findOne({ _id: 'order-1' }))!.count).toBe(1);
    });

    it('waitFor returns at once for undefined or past positions, and rejects with ProjectionLagError after its timeout otherwise', async () => {
      const e = engine([orderTotals()]);
      await e.start();
      await e.waitFor(undefined);
      await e.waitFor(-1n);
      jest.useFakeTimers();
      try {
        let settled = false;
        const waiting = e.waitFor(1_000_000n).finally(() => (settled = true));
        waiting.catch(() => undefined);
        await jest.advanceTimersByTimeAsync(4999);
        expect(settled).toBe(false);
        await jest.advanceTimersByTimeAsync(1);
        const err = await waiting.catch((x: unknown) => x);
        expect(err).toBeInstanceOf(ProjectionLagError);
        expect(err).toBeInstanceOf(AppError);
        expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', position: 1_000_000n, timeoutMs: 5000, headers: { 'Retry-After': '1' } });
        expect((err as Error).message).toMatch(/stored/);
      } finally {
        jest.useRealTimers();
      }
    });

    it('onProjected announces each move of the read models, also when another engine on the same stores applied the events', async () => {
      const a = engine([orderTotals()]);
      const b = engine([orderTotals()]);
      await a.start();
      await b.start();
      const announced: bigint[] = [];
      let seen!: (doc: unknown) => void;
      const docAtAnnouncement = new Promise((resolve) => (seen = resolve));
      let position = -1n;
      const unsubscribe = a.onProjected((p) => {
        announced.push(p);
        if (p >= position && position >= 0n) void readStore.collection('order_totals').findOne({ _id: 'order-1' }).then(seen);
      });
      // a's loop waits while b applies the event (with transactions b's batch is the only one applying it)
      await a.pauseProjections(async () => {
        position = (await events.appendToStream('order-1', [added('a')])).position;
        await b.waitFor(position);
        expect(b.projectedPosition()).toBe(position);
      });
      expect(await docAtAnnouncement).toMatchObject({ _id: 'order-1', count: 1, last: 'a' });
      expect(announced[announced.length - 1]).toBe(position);
      unsubscribe();
      const next = await events.appendToStream('order-2', [added('b')]);
      await a.waitFor(next.position);
      expect(announced[announced.length - 1]).toBe(position);
    });

    it('events appended by another writer arrive by polling', async () => {
      const e = engine([orderTotals()]);
      await e.start();
      // Append through the connection directly, bypassing this store's notification.
      events.connection
        .prepare("INSERT INTO events (id, stream, revision, type, data, metadata) VALUES ('x1', 'order-9', 0, 'ItemAdded', '{\"item\":\"z\"}', '{\"schemaVersion\":1,\"occurredAt\":\"2026-01-01T00:00:00Z\"}')")
        .run();
      // like a commit of another process, it is seen by reads from the next event-loop turn on
      await new Promise((r) => setImmediate(r));
      const head = await events.headPosition();
      await e.waitFor(head, 3000);
      expect(e.projectedPosition()).toBe(head);
      expect((await readStore.collection('order_totals').findOne({ _id: 'order-9' }))!.last).toBe('z');
    });

    it('stores each projection checkpoint in the read store and resumes from it after a restart', async () => {
      await events.appendToStream('order-1', [added('a'), added('b')]);
      const first = new Recording();
      const e1 = engine([first]);
      await e1.start();
      expect(first.applied).toHaveLength(2);
      const cp = await readStore.collection('projection_checkpoints').findOne({ _id: 'recording' });
      expect(cp).toMatchObject({ _id: 'recording', position: String(await events.headPosition()) });
      await e1.stop();

      await events.appendToStream('order-1', [added('c')]);
      const second = new Recording();
      await engine([second]).start();
      expect(second.applied).toEqual([await events.headPosition()]); // only the new event
      expect((await readStore.collection('log').findOne({ _id: 'recording' }))!.n).toBe(3);
    });

    it('stores the checkpoints of events applied since the last store when it stops', async () => {
      // the clock stands still: no 250 ms interval passes, so only the catch-up and the stop store
      jest.useFakeTimers({ now: Date.now(), doNotFake: ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'nextTick', 'queueMicrotask', 'hrtime', 'performance'] });
      try {
        await events.appendToStream('order-1', [added('early')]);
        const rec = new Recording();
        const e1 = engine([rec]);
        await e1.start();
        const checkpoint = async () => (await readStore.collection('projection_checkpoints').findOne({ _id: 'recording' }))?.position;
        expect(await checkpoint()).toBe(String(await events.headPosition()));
        const { position } = await events.appendToStream('order-1', [added('late')]);
        await e1.waitFor(position);
        expect(rec.applied).toContain(position);
        // With transactions the checkpoint is part of every batch; without, it is not stored after every batch.
        expect(await checkpoint()).toBe(String(transactional ? position : position - 1n));
        await e1.stop();
        expect(await checkpoint()).toBe(String(position));
      } finally {
        jest.useRealTimers();
      }
    });

    it('a new projection starts from the beginning while the others skip what they applied', async () => {
      await events.appendToStream('order-1', [added('a'), added('b')]);
      const old = new Recording('old');
      await engine([old]).start();
      await engines[0].stop();
      const again = new Recording('old');
      const added2 = new Recording('new');
      await engine([again, added2]).start();
      expect(again.applied).toEqual([]);
      expect(added2.applied).toHaveLength(2);
    });

    it('redelivery after a crash before the checkpoint is harmless for document projections', async () => {
      await events.appendToStream('order-1', [added('a'), added('b'), added('c')]);
      await engine([orderTotals()]).start();
      await engines[0].stop();
      const before = await readStore.collection('order_totals').find({});
      // Crash between writing documents and the checkpoint: the checkpoint is behind.
      await readStore.collection('projection_checkpoints').deleteMany({});
      await engine([orderTotals()]).start();
      expect(await readStore.collection('order_totals').find({})).toEqual(before);
    });

    it('a failing projection retries the same event and does not move past it', async () => {
      await events.appendToStream('order-1', [added('a'), added('b')]);
      let failures = 2;
      const seen: string[] = [];
      const flaky: Projection = {
        name: 'flaky',
        collections: [],
        handles: ['ItemAdded'],
        async apply(e) {
          const item = (e.data as { item: string }).item;
          if (item === 'b' && failures-- > 0) throw new Error('transient');
          seen.push(item);
        },
      };
      const e = engine([flaky]);
      await e.start();
      // With transactions a failed batch is rolled back whole and applied again.
      expect(seen).toEqual(transactional ? ['a', 'a', 'a', 'b'] : ['a', 'b']);
      expect(e.health().lastError).toContain('transient');
    });
  });

  // Reactors do not touch the read store: their tests run once, on the first store.
  (transactional ? describe : describe.skip)('reactors', () => {
    class Recorder implements Reactor {
      constructor(
        readonly name = 'recorder',
        readonly exclusive = false,
      ) {}
      readonly handles = ['ItemAdded'];
      readonly handled: string[] = [];
      readonly contexts: (string | undefined)[] = [];
      failNext = 0;
      async handle(event: RecordedEvent): Promise<void> {
        if (this.failNext > 0) {
          this.failNext--;
          throw new Error('downstream unavailable');
        }
        this.handled.push((event.data as { item: string }).item);
        this.contexts.push(RequestContexts.current()?.actor);
      }
    }

    const until = async (check: () => boolean, ms = 5000) => {
      const end = Date.now() + ms;
      while (!check()) {
        if (Date.now() > end) throw new Error('timed out');
        await new Promise((r) => setTimeout(r, 10));
      }
    };

    it('delivers stored events in order, in a request context of their own', async () => {
      await events.appendToStream('order-1', [added('a'), added('b')], {});
      const r = new Recorder();
      await engine([], [r]).start();
      await events.appendToStream('order-2', [added('c')]);
      await until(() => r.handled.length === 3);
      expect(r.handled).toEqual(['a', 'b', 'c']);
      expect(r.contexts).toEqual(['system:recorder', 'system:recorder', 'system:recorder']);
    });

    it('keeps a durable checkpoint: a restarted reactor does not redo handled events', async () => {
      await events.appendToStream('order-1', [added('a'), added('b')]);
      const r1 = new Recorder();
      await engine([], [r1]).start();
      await until(() => r1.handled.length === 2);
      await engines[0].stop();
      expect(await checkpoints.load('reactor:recorder')).toBe(await events.headPosition());

      await events.appendToStream('order-1', [added('c')]);
      const r2 = new Recorder();
      await engine([], [r2]).start();
      await until(() => r2.handled.length === 1);
      await new Promise((res) => setTimeout(res, 100));
      expect(r2.handled).toEqual(['c']);
    });

    it('retries a failing event with backoff and keeps the checkpoint before it', async () => {
      await events.appendToStream('order-1', [added('a')]);
      const r = new Recorder();
      const e = engine([], [r]);
      await e.start();
      await until(() => r.handled.length === 1);
      r.failNext = 2;
      const { position } = await events.appendToStream('order-1', [added('b')]);
      await until(() => r.failNext === 1);
      expect(await checkpoints.load('reactor:recorder')).toBeLessThan(position);
      await until(() => r.handled.length === 2, 8000);
      expect(r.handled).toEqual(['a', 'b']);
      await e.stop();
      expect(await checkpoints.load('reactor:recorder')).toBe(position);
    }, 15_000);

    it('stores its checkpoint at most every 250 ms, and when it stops', async () => {
      jest.useFakeTimers({ now: Date.now(), doNotFake: ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'nextTick', 'queueMicrotask', 'hrtime', 'performance'] });
      try {
        const first = await events.appendToStream('order-1', [added('a')]);
        const r = new Recorder();
        const e = engine([], [r]);
        await e.start();
        await until(() => r.handled.length === 1);
        await new Promise((res) => setTimeout(res, 50));
        expect(await checkpoints.load('reactor:recorder')).toBe(first.position); // the first batch is stored
        const { position } = await events.appendToStream('order-1', [added('b')]);
        await until(() => r.handled.length === 2);
        expect(await checkpoints.load('reactor:recorder')).toBe(first.position); // the clock stands still
        jest.setSystemTime(Date.now() + 250);
        const third = await events.appendToStream('order-1', [added('c')]);
        await until(() => r.handled.length === 3);
        await new Promise((res) => setTimeout(res, 50));
        expect(await checkpoints.load('reactor:recorder')).toBe(third.position);
        expect(third.position).toBeGreaterThan(position);
        jest.setSystemTime(Date.now() + 10); // less than 250 ms later
        const fourth = await events.appendToStream('order-1', [added('d')]);
        await until(() => r.handled.length === 4);
        expect(await checkpoints.load('reactor:recorder')).toBe(third.position);
        await e.stop();
        expect(await checkpoints.load('reactor:recorder')).toBe(fourth.position);
      } finally {
        jest.useRealTimers();
      }
    });

    it('runs an exclusive reactor in one process at a time (the others run every reactor); another takes over when it stops', async () => {
      const leases = new ReadStoreLeaseStore(SqliteReadStore.open(':memory:'));
      const [x1, x2] = [new Recorder('once', true), new Recorder('once', true)];
      const [p1, p2] = [new Recorder('everywhere'), new Recorder('everywhere')];
      const e1 = engine([], [x1, p1], leases);
      const e2 = engine([], [x2, p2], leases);
      await Promise.all([e1.start(), e2.start()]);
      await events.appendToStream('order-1', ['a', 'b', 'c', 'd'].map(added));
      await until(() => x1.handled.length + x2.handled.length >= 4 && p1.handled.length === 4 && p2.handled.length === 4);
      await new Promise((res) => setTimeout(res, 400));
      expect([...x1.handled, ...x2.handled]).toEqual(['a', 'b', 'c', 'd']);
      expect([x1.handled.length, x2.handled.length].sort()).toEqual([0, 4]);
      expect(p2.handled).toEqual(['a', 'b', 'c', 'd']);

      const [holder, other] = x1.handled.length ? [e1, x2] : [e2, x1];
      await holder.stop();
      await events.appendToStream('order-1', ['e', 'f'].map(added));
      await until(() => other.handled.length === 2);
      await new Promise((res) => setTimeout(res, 300));
      expect([...x1.handled, ...x2.handled].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    });

    it('start({ reactors: false }) runs projections only', async () => {
      await events.appendToStream('order-1', [added('a')]);
      const r = new Recorder();
      await engine([orderTotals()], [r]).start({ reactors: false });
      await new Promise((res) => setTimeout(res, 300));
      expect(r.handled).toEqual([]);
      expect(await readStore.collection('order_totals').count({})).toBe(1);
    });
  });

  it('refuses two subscriptions with one name', () => {
    expect(() => engine([new Recording('same')], [{ name: 'same', handles: [], handle: async () => undefined }]).discover()).toThrow(/same/);
  });
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
