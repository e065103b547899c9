import { Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import { AppError, type NewEvent, type RecordedEvent } from '@gensvc/kernel';
import { AsProjection, AsReactor, SubscriptionEngine } from '../engine';
import type { CheckpointStore, EventStore } from '../event-store.port';
import type { LeaseStore } from '../lease-store.port';
import { ProjectionLagError } from '../projection-lag.error';
import { documentProjection, type Projection, type ProjectionTarget } from '../projection';
import type { Reactor } from '../reactor';
import type { ReadStore } from '../read-store/read-store.port';

/** Discovery as Nest would answer it for the given providers. */
export function discovery(projections: Projection[], reactors: Reactor[]): DiscoveryService {
  return {
    getProviders: ({ metadataKey }: { metadataKey: string }) =>
      (metadataKey === AsProjection.KEY ? projections : metadataKey === AsReactor.KEY ? reactors : []).map((instance) => ({ instance })),
  } as unknown as DiscoveryService;
}

/** Counts per order, by a document projection (idempotent by position). */
export const orderTotals = () =>
  documentProjection<{ count: number; last: string }>({
    name: 'order-totals',
    collection: 'order_totals',
    handles: ['ItemAdded'],
    documentId: (e) => e.streamName,
    evolve: (doc, e) => ({ count: (doc?.count ?? 0) + 1, last: (e.data as { item: string }).item }),
  });

/** A projection that records every delivery (to see redelivery and skipping). */
export class Recording implements Projection {
  readonly collections = ['log'];
  readonly handles = ['ItemAdded'];
  readonly applied: bigint[] = [];
  constructor(readonly name = 'recording') {}
  async apply(event: RecordedEvent, target: ProjectionTarget): Promise<void> {
    this.applied.push(event.position);
    await target.collection('log').updateOne({ _id: this.name }, { $inc: { n: 1 } }, { upsert: true });
  }
}

export const added = (item: string) => ({ type: 'ItemAdded', data: { item } });

/** The stores one engine test runs on, fresh for each test. */
export interface EngineStores {
  readonly events: EventStore;
  readonly readStore: ReadStore;
  readonly checkpoints: CheckpointStore;
  readonly leases: LeaseStore;
  /** Appends as another process would: `events` does not announce it to its `onAppended` listeners. */
  appendElsewhere(stream: string, events: readonly NewEvent[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The projection guarantees of the subscription engine on one kind of stores: the unit spec
 * runs them on the in-memory stores (a read store without transactions, as MongoDB), the
 * integration spec on SQLite (with transactions). Where the two loops differ (a failed batch
 * rolled back whole, checkpoints stored with each batch), the expectations say how.
 */
export function subscriptionEngineProjections(label: string, open: () => EngineStores): void {
  describe(`SubscriptionEngine projections on ${label}`, () => {
    let stores: EngineStores;
    let events: EventStore;
    let readStore: ReadStore;
    let transactional: boolean;
    const engines: SubscriptionEngine[] = [];
    const engine = (projections: Projection[]) => {
      const e = new SubscriptionEngine(events, readStore, stores.checkpoints, discovery(projections, []), stores.leases);
      engines.push(e);
      return e;
    };

    beforeAll(() => Logger.overrideLogger(false));
    beforeEach(() => {
      stores = open();
      ({ events, readStore } = stores);
      transactional = readStore.transaction !== undefined;
    });
    afterEach(async () => {
      for (const e of engines.splice(0)) await e.stop();
      await stores.close();
    });

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
      await stores.appendElsewhere('order-9', [added('z')]);
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
}
