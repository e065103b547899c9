import { randomUUID } from 'node:crypto';
import { ConcurrencyError } from '@gensvc/kernel';
import type { NewEvent, RecordedEvent } from '@gensvc/kernel';
import type { EventStore } from '../../event-store.port';
import { EventSchemas } from '@gensvc/kernel';

/**
 * What a contract suite needs from one event store adapter: a way to open (possibly
 * several) stores on the same underlying storage, and to clean up at the end.
 */
export interface EventStoreFixture {
  /** Opens a store on the shared storage, reading with `schemas`. */
  open(schemas: EventSchemas): Promise<EventStore>;
  /** True when the storage starts empty (an embedded file), false for a shared server. */
  readonly fresh: boolean;
  cleanup?(): Promise<void>;
}

const ev = (type: string, data: unknown, extra: Partial<NewEvent> = {}): NewEvent => ({ type, data, ...extra });

/**
 * The event store contract: every adapter must pass it. Stream names are unique per run, and
 * `$all` assertions only look at this run's streams, so it also runs against a shared server.
 */
export function eventStoreContract(name: string, makeFixture: () => Promise<EventStoreFixture>): void {
  describe(`EventStore contract: ${name}`, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;
    let other: EventStore;
    const opened: EventStore[] = [];
    const run = `r${randomUUID().slice(0, 8)}`;
    let n = 0;
    const stream = (aggregate = 'thing') => `${aggregate}-${run}x${++n}`;
    const ours = (events: RecordedEvent[]) => events.filter((e) => e.streamName.includes(run));
    const open = async (schemas = new EventSchemas()) => {
      const s = await fixture.open(schemas);
      opened.push(s);
      return s;
    };

    beforeAll(async () => {
      fixture = await makeFixture();
      store = await open();
      other = await open();
    });

    afterAll(async () => {
      for (const s of opened) await s.close();
      await fixture?.cleanup?.();
    });

    describe('expected revision', () => {
      it('no_stream creates a stream and refuses an existing one', async () => {
        const s = stream();
        const r = await store.appendToStream(s, [ev('Created', { a: 1 })], { expectedRevision: 'no_stream' });
        expect(r.nextExpectedRevision).toBe(0n);
        await expect(store.appendToStream(s, [ev('Created', { a: 2 })], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
          ConcurrencyError,
        );
        expect(await store.readStream(s)).toHaveLength(1);
      });

      it('an exact revision appends only on the matching head', async () => {
        const s = stream();
        await store.appendToStream(s, [ev('A', {})], { expectedRevision: 'no_stream' });
        const r = await store.appendToStream(s, [ev('B', {})], { expectedRevision: 0n });
        expect(r.nextExpectedRevision).toBe(1n);
        const stale = store.appendToStream(s, [ev('C', {})], { expectedRevision: 0n });
        await expect(stale).rejects.toBeInstanceOf(ConcurrencyError);
        await expect(store.appendToStream(s, [ev('C', {})], { expectedRevision: 5n })).rejects.toBeInstanceOf(ConcurrencyError);
        await expect(store.appendToStream(stream(), [ev('C', {})], { expectedRevision: 0n })).rejects.toBeInstanceOf(ConcurrencyError);
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A', 'B']);
      });

      it('a ConcurrencyError names the stream', async () => {
        const s = stream();
        await store.appendToStream(s, [ev('A', {})]);
        const err = await store.appendToStream(s, [ev('B', {})], { expectedRevision: 'no_stream' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConcurrencyError);
        expect((err as ConcurrencyError).streamName).toBe(s);
      });

      it('stream_exists needs the stream; any never checks', async () => {
        const s = stream();
        await expect(store.appendToStream(s, [ev('A', {})], { expectedRevision: 'stream_exists' })).rejects.toBeInstanceOf(ConcurrencyError);
        expect(await store.readStream(s)).toEqual([]);
        expect((await store.appendToStream(s, [ev('A', {})], { expectedRevision: 'any' })).nextExpectedRevision).toBe(0n);
        expect((await store.appendToStream(s, [ev('B', {})], { expectedRevision: 'stream_exists' })).nextExpectedRevision).toBe(1n);
        expect((await store.appendToStream(s, [ev('C', {})])).nextExpectedRevision).toBe(2n);
      });
    });

    describe('atomic multi-event append', () => {
      it('appends all events of one call with consecutive revisions and increasing positions', async () => {
        const s = stream();
        await store.appendToStream(s, [ev('A', { i: 0 })]);
        const r = await store.appendToStream(s, [ev('B', { i: 1 }), ev('C', { i: 2 }), ev('D', { i: 3 })], { expectedRevision: 0n });
        expect(r.nextExpectedRevision).toBe(3n);
        const events = await store.readStream(s);
        expect(events.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n]);
        expect(events.map((e) => e.data)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }]);
        const all = ours(await store.readAll({ after: events[0].position }));
        expect(all.map((e) => e.type)).toEqual(['B', 'C', 'D']);
        for (let i = 1; i < all.length; i++) expect(all[i].position).toBeGreaterThan(all[i - 1].position);
        expect(r.position).toBe(all[2].position);
      });

      it('writes nothing when any event of the call cannot be stored', async () => {
        const s = stream();
        const before = await store.headPosition();
        const bad = { n: 1n }; // a bigint is not JSON
        await expect(store.appendToStream(s, [ev('A', { ok: true }), ev('B', bad)])).rejects.toThrow();
        expect(await store.readStream(s)).toEqual([]);
        expect(ours(await store.readAll({ after: before }))).toEqual([]);
      });

      it('writes nothing when the expected revision fails', async () => {
        const s = stream();
        await store.appendToStream(s, [ev('A', {})]);
        await expect(store.appendToStream(s, [ev('B', {}), ev('C', {})], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
          ConcurrencyError,
        );
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A']);
      });
    });

    describe('reading a stream', () => {
      it('is empty for a missing stream', async () => {
        expect(await store.readStream(stream())).toEqual([]);
      });

      it('returns ids, types, data and metadata as appended, from a revision', async () => {
        const s = stream('order');
        const id = randomUUID();
        await store.appendToStream(s, [
          ev('Placed', { total: '12.500000', items: [{ sku: 'x', qty: 2 }], note: null }, {
            id,
            metadata: { correlationId: 'req_1', causationId: 'req_1', actor: 'account:acc_1', occurredAt: '2026-01-02T03:04:05.000Z' },
          }),
          ev('Paid', { at: 't' }),
        ]);
        const [first, second] = await store.readStream(s);
        expect(first).toMatchObject({
          id,
          streamName: s,
          revision: 0n,
          type: 'Placed',
          data: { total: '12.500000', items: [{ sku: 'x', qty: 2 }], note: null },
          metadata: { schemaVersion: 1, correlationId: 'req_1', causationId: 'req_1', actor: 'account:acc_1', occurredAt: '2026-01-02T03:04:05.000Z' },
        });
        expect(second.id).toEqual(expect.any(String));
        expect(second.id).not.toBe(id);
        expect(new Date(second.metadata.occurredAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
        expect((await store.readStream(s, { fromRevision: 1n })).map((e) => e.type)).toEqual(['Paid']);
        expect(await store.readStream(s, { fromRevision: 2n })).toEqual([]);
      });

      it('keeps a caller-chosen id that is not a UUID', async () => {
        const s = stream();
        await store.appendToStream(s, [ev('A', {}, { id: `evt_${run}_1` })]);
        expect((await store.readStream(s))[0].id).toBe(`evt_${run}_1`);
      });

      it('reports the same positions as $all', async () => {
        const s = stream();
        const before = await store.headPosition();
        await store.appendToStream(s, [ev('A', {}), ev('B', {})]);
        await store.appendToStream(s, [ev('C', {})]);
        const fromStream = await store.readStream(s);
        const fromAll = (await store.readAll({ after: before })).filter((e) => e.streamName === s);
        expect(fromStream.map((e) => e.position)).toEqual(fromAll.map((e) => e.position));
      });
    });

    describe('reading all streams', () => {
      it('returns events of all streams in global order, after an exclusive position, up to maxCount', async () => {
        const before = await store.headPosition();
        const a = stream();
        const b = stream();
        await store.appendToStream(a, [ev('A1', {})]);
        await other.appendToStream(b, [ev('B1', {})]);
        await store.appendToStream(a, [ev('A2', {}), ev('A3', {})]);
        await other.appendToStream(b, [ev('B2', {})]);
        const all = ours(await store.readAll({ after: before }));
        expect(all.map((e) => e.type)).toEqual(['A1', 'B1', 'A2', 'A3', 'B2']);
        expect(all.map((e) => e.streamName)).toEqual([a, b, a, a, b]);
        for (let i = 1; i < all.length; i++) expect(all[i].position).toBeGreaterThan(all[i - 1].position);

        // Exclusive: after an event's own position starts with the next one, even inside one append.
        expect(ours(await store.readAll({ after: all[2].position })).map((e) => e.type)).toEqual(['A3', 'B2']);
        expect(ours(await store.readAll({ after: all[1].position, maxCount: 2 })).map((e) => e.type)).toEqual(['A2', 'A3']);

        // Paging one event at a time visits each event exactly once.
        const paged: string[] = [];
        let after = before;
        for (;;) {
          const page = await store.readAll({ after, maxCount: 1 });
          if (!page.length) break;
          expect(page).toHaveLength(1);
          after = page[0].position;
          if (page[0].streamName.includes(run) && [a, b].includes(page[0].streamName)) paged.push(page[0].type);
        }
        expect(paged).toEqual(['A1', 'B1', 'A2', 'A3', 'B2']);
      });

      it('headPosition is the position of the newest event', async () => {
        const s = stream();
        const r = await store.appendToStream(s, [ev('A', {}), ev('B', {})]);
        expect(await store.headPosition()).toBe(r.position);
        expect(await other.headPosition()).toBe(r.position);
        expect(await store.readAll({ after: r.position })).toEqual([]);
      });

      it('an empty store has head -1 and no events', async () => {
        if (!fixture.fresh) return; // a shared server is never empty
        const fresh = await makeFixture();
        const s = await fresh.open(new EventSchemas());
        try {
          expect(await s.headPosition()).toBe(-1n);
          expect(await s.readAll()).toEqual([]);
        } finally {
          await s.close();
          await fresh.cleanup?.();
        }
      });
    });

    describe('concurrency', () => {
      it('exactly one of concurrent appends at the same expected revision wins', async () => {
        const s = stream();
        await store.appendToStream(s, [ev('Created', {})]);
        const writers = Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store));
        const results = await Promise.allSettled(
          writers.map((w, i) => w.appendToStream(s, [ev('Changed', { by: i })], { expectedRevision: 0n })),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(9);
        for (const l of lost) expect(l.reason).toBeInstanceOf(ConcurrencyError);
        const events = await store.readStream(s);
        expect(events.map((e) => e.revision)).toEqual([0n, 1n]);
      });

      it('appends retried on conflict from two stores all land, one revision each', async () => {
        const s = stream();
        const appendWithRetry = async (w: EventStore, i: number) => {
          for (;;) {
            const head = await w.readStream(s);
            const expectedRevision = head.length ? head[head.length - 1].revision : ('no_stream' as const);
            try {
              return await w.appendToStream(s, [ev('Inc', { i })], { expectedRevision });
            } catch (err) {
              if (!(err instanceof ConcurrencyError)) throw err;
            }
          }
        };
        await Promise.all(Array.from({ length: 12 }, (_, i) => appendWithRetry(i % 2 ? other : store, i)));
        const events = await store.readStream(s);
        expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 12 }, (_, i) => BigInt(i)));
        expect(new Set(events.map((e) => (e.data as { i: number }).i)).size).toBe(12);
      });
    });

    describe('schema evolution', () => {
      it('lifts stored data to the current schema version on read', async () => {
        const s = stream();
        const before = await store.headPosition();
        const v1 = new EventSchemas();
        const writer = await open(v1);
        await writer.appendToStream(s, [ev('Renamed', { name: 'Ada Lovelace' })]);
        expect((await writer.readStream(s))[0].metadata.schemaVersion).toBe(1);

        const v3 = new EventSchemas()
          .upcast('Renamed', 1, (d: { name: string }) => ({ first: d.name.split(' ')[0], last: d.name.split(' ')[1] }))
          .upcast('Renamed', 2, (d: { first: string; last: string }) => ({ ...d, display: `${d.last}, ${d.first}` }));
        const reader = await open(v3);
        const [fromStream] = await reader.readStream(s);
        expect(fromStream.data).toEqual({ first: 'Ada', last: 'Lovelace', display: 'Lovelace, Ada' });
        expect(fromStream.metadata.schemaVersion).toBe(3);
        const [fromAll] = (await reader.readAll({ after: before })).filter((e) => e.streamName === s);
        expect(fromAll.data).toEqual(fromStream.data);

        // New appends through the upgraded store are stored at the current version.
        await reader.appendToStream(s, [ev('Renamed', { first: 'Grace', last: 'Hopper', display: 'Hopper, Grace' })]);
        const [, second] = await reader.readStream(s);
        expect(second.metadata.schemaVersion).toBe(3);
        expect(second.data).toEqual({ first: 'Grace', last: 'Hopper', display: 'Hopper, Grace' });
      });
    });

    describe('notifications and lifecycle', () => {
      it('onAppended calls listeners after an append until unsubscribed', async () => {
        let calls = 0;
        const off = store.onAppended(() => calls++);
        await store.appendToStream(stream(), [ev('A', {})]);
        await waitUntil(() => calls > 0);
        off();
        const seen = calls;
        // A listener still subscribed hears the next notification: by then the unsubscribed one would have too.
        const next = new Promise<void>((resolve) => {
          const offNext = store.onAppended(() => {
            offNext();
            resolve();
          });
        });
        await store.appendToStream(stream(), [ev('B', {})]);
        await next;
        expect(calls).toBe(seen);
      });

      it('ping answers', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });
    });
  });
}

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
