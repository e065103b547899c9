import fc from 'fast-check';
import { runCollectionOp, type CollectionOp } from '@gensvc/event-sourcing/testing/collection-ops';
import type { Collection, Doc, Filter } from '@gensvc/event-sourcing';
import { SqliteReadStore } from './sqlite-read-store';
import { deferIndexes, targetOf } from '@gensvc/event-sourcing';

/**
 * Inside `transaction(fn)` the embedded read store holds the documents named by `_id` in
 * memory and writes them when `fn` ends: every operation must answer as it does outside a
 * transaction, and the rows written must be the same, in the same insertion order.
 */

const ids = fc.constantFrom('a', 'b', 'c', 'd');
const titles = fc.constantFrom('Red fox', 'blue whale', 'fox and whale');

const docArb = fc.record({
  _id: ids,
  _pos: fc.integer({ min: 0, max: 5 }),
  status: fc.constantFrom('new', 'done', null),
  n: fc.integer({ min: 0, max: 5 }),
  email: fc.constantFrom('x@e', 'y@e'),
  title: titles,
  tags: fc.array(fc.constantFrom('t1', 't2'), { maxLength: 2 }),
  gone: fc.constantFrom(undefined, true),
});

const filterArb: fc.Arbitrary<Filter> = fc.oneof(
  ids.map((_id) => ({ _id })),
  ids.map((_id) => ({ _id: { $eq: _id } })),
  fc.tuple(ids, fc.integer({ min: 0, max: 5 })).map(([_id, _pos]) => ({ _id, _pos })),
  fc.tuple(ids, fc.integer({ min: 0, max: 6 })).map(([_id, p]) => ({ _id, _pos: { $lt: p } })),
  fc.constantFrom('new', 'done', null).map((status) => ({ status })),
  fc.integer({ min: 0, max: 5 }).map((n) => ({ n: { $gt: n } })),
  fc.constant({ $or: [{ title: { $regex: 'fox', $options: 'i' } }] }),
  fc.constant({ _id: { $in: ['a', 'c'] } }),
  fc.constant({}),
);

const updateArb = fc.oneof(
  fc.constantFrom('new', 'done').map((status) => ({ $set: { status } })),
  fc.integer({ min: -2, max: 2 }).map((by) => ({ $inc: { n: by } })),
  titles.map((title) => ({ $set: { title }, $setOnInsert: { n: 0 } })),
  fc.constantFrom({ $push: { tags: 't1' } }, { $unset: { status: '' } }, { $inc: { status: 1 } }, { $set: { 'deep.x': 1 } }),
);

const opArb: fc.Arbitrary<CollectionOp> = fc.oneof(
  { arbitrary: docArb.map((doc) => ({ op: 'insertOne' as const, doc: doc as Doc })), weight: 3 },
  { arbitrary: fc.record({ filter: filterArb, doc: docArb, upsert: fc.boolean() }).map((r) => ({ op: 'replaceOne' as const, ...r, doc: r.doc as Doc })), weight: 3 },
  { arbitrary: fc.record({ filter: filterArb, update: updateArb, upsert: fc.boolean() }).map((r) => ({ op: 'updateOne' as const, ...r })), weight: 3 },
  { arbitrary: fc.record({ op: fc.constantFrom('deleteOne' as const, 'findOne' as const), filter: filterArb }), weight: 3 },
  { arbitrary: fc.record({ filter: filterArb, update: updateArb }).map((r) => ({ op: 'updateMany' as const, ...r })), weight: 1 },
  { arbitrary: fc.record({ op: fc.constantFrom('deleteMany' as const, 'count' as const), filter: filterArb }), weight: 1 },
  { arbitrary: fc.record({ filter: filterArb, limit: fc.integer({ min: 0, max: 3 }) }).map((r) => ({ op: 'find' as const, ...r })), weight: 1 },
  { arbitrary: fc.constantFrom({ op: 'uniqueEmail' as const }, { op: 'indexStatus' as const }), weight: 1 },
);

/** Everything a reader can tell: the rows in insertion order, a sorted page, a search. */
async function contents(c: Collection) {
  return {
    inserted: await c.find({}),
    sorted: await c.find({}, { sort: { n: -1, _id: 1 } }),
    search: (await c.find({ $or: [{ title: { $regex: 'whale', $options: 'i' } }] }, { sort: { _id: 1 }, limit: 2 })).map((d) => d._id),
  };
}

describe('SqliteReadStore transactions', () => {
  it('answer every operation as the store does outside a transaction, and leave the same rows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 30 }), fc.array(opArb, { maxLength: 10 }), async (before, inside) => {
        const direct = SqliteReadStore.open(':memory:');
        const batched = SqliteReadStore.open(':memory:');
        try {
          for (const s of [direct, batched]) await s.collection('c').createIndex({ keys: { title: 1 }, search: true });
          // the same history outside, then the ops inside a transaction on one store only
          for (const op of before) {
            expect(await runCollectionOp(batched.collection('c'), op)).toEqual(await runCollectionOp(direct.collection('c'), op));
          }
          const expected: unknown[] = [];
          for (const op of inside) expected.push(await runCollectionOp(direct.collection('c'), op));
          const seenInside = await batched.transaction!(async () => {
            const got: unknown[] = [];
            for (const op of inside) got.push(await runCollectionOp(batched.collection('c'), op));
            return { got, contents: await contents(batched.collection('c')) };
          });
          expect(seenInside.got).toEqual(expected);
          const want = await contents(direct.collection('c'));
          expect(seenInside.contents).toEqual(want);
          expect(await contents(batched.collection('c'))).toEqual(want);
        } finally {
          await direct.close();
          await batched.close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps its writes from readers outside it until it commits, and drops them when it fails', async () => {
    const store = SqliteReadStore.open(':memory:');
    const c = store.collection('c');
    await c.insertOne({ _id: 'a', n: 1 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const txn = store.transaction!(async () => {
      await c.replaceOne({ _id: 'a' }, { _id: 'a', n: 2 });
      await c.insertOne({ _id: 'b', n: 1 });
      expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 2 });
      await gate;
    });
    await new Promise((r) => setImmediate(r));
    expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
    expect(await c.findOne({ _id: 'b' })).toBeNull();
    release();
    await txn;
    expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 'a', n: 2 },
      { _id: 'b', n: 1 },
    ]);

    await expect(
      store.transaction!(async () => {
        await c.updateOne({ _id: 'a' }, { $inc: { n: 10 } });
        await c.deleteOne({ _id: 'b' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 'a', n: 2 },
      { _id: 'b', n: 1 },
    ]);
    await store.close();
  });

  it('gives a document deleted and inserted again a new place in insertion order, as outside', async () => {
    for (const inside of [false, true]) {
      const store = SqliteReadStore.open(':memory:');
      const c = store.collection('c');
      await c.insertOne({ _id: 'a', v: 1 });
      await c.insertOne({ _id: 'b', v: 1 });
      const ops = async () => {
        await c.deleteOne({ _id: 'a' });
        await c.findOne({ _id: 'c' });
        await c.insertOne({ _id: 'c', v: 2 });
        await c.insertOne({ _id: 'a', v: 2 });
      };
      if (inside) await store.transaction!(ops);
      else await ops();
      expect((await c.find({})).map((d) => d._id)).toEqual(['b', 'c', 'a']);
      await store.close();
    }
  });

  it('hands out copies: a document changed by its caller after a write or a read stays as written', async () => {
    const store = SqliteReadStore.open(':memory:');
    const c = store.collection('c');
    await store.transaction!(async () => {
      const doc = { _id: 'a', list: [1], at: undefined as unknown, nested: { x: 1 } };
      await c.insertOne(doc);
      doc.list.push(2);
      const read = (await c.findOne({ _id: 'a' }))!;
      expect(read).toStrictEqual({ _id: 'a', list: [1], nested: { x: 1 } });
      (read.nested as { x: number }).x = 9;
    });
    expect(await c.findOne({ _id: 'a' })).toStrictEqual({ _id: 'a', list: [1], nested: { x: 1 } });
    await store.close();
  });

  it('writes out what it holds beyond its bound and stays correct', async () => {
    const store = SqliteReadStore.open(':memory:');
    const c = store.collection('c');
    const n = 25_000;
    await store.transaction!(async () => {
      for (let i = 0; i < n; i++) await c.insertOne({ _id: `d${i}`, i });
      for (let i = 0; i < n; i += 1000) await c.updateOne({ _id: `d${i}` }, { $set: { seen: true } });
      expect(await c.findOne({ _id: 'd0' })).toEqual({ _id: 'd0', i: 0, seen: true });
    });
    expect(await c.count({})).toBe(n);
    expect(await c.count({ seen: true })).toBe(n / 1000);
    expect((await c.find({}, { limit: 3 })).map((d) => d._id)).toEqual(['d0', 'd1', 'd2']);
    await store.close();
  });
});

describe('deferIndexes', () => {
  const indexes = (store: SqliteReadStore) =>
    (store.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND name LIKE 'd\\_%' ESCAPE '\\'").get() as { n: number }).n;

  it('creates unique indexes at once and the others over the loaded rows when asked', async () => {
    const store = SqliteReadStore.open(':memory:');
    const bulk = deferIndexes(targetOf(store));
    const c = bulk.target.collection('c');
    await c.createIndex({ keys: { email: 1 }, unique: true });
    await c.createIndex({ keys: { n: 1 } });
    await c.createIndex({ keys: { title: 1 }, search: true });
    expect(indexes(store)).toBe(2); // the unique one: an index and its constraint
    await c.insertOne({ _id: 'a', email: 'x', n: 2, title: 'A red fox' });
    await expect(c.insertOne({ _id: 'b', email: 'x', n: 1, title: 'A whale' })).rejects.toMatchObject({ name: 'DuplicateKeyError' });
    await c.insertOne({ _id: 'c', email: 'y', n: 1, title: 'Blue whale' });
    await bulk.createDeferred();
    expect(indexes(store)).toBe(3);
    expect(await store.collection('c').find({ $or: [{ title: { $regex: 'WHALE', $options: 'i' } }] }, { sort: { n: 1 }, limit: 5 })).toEqual([
      { _id: 'c', email: 'y', n: 1, title: 'Blue whale' },
    ]);
    await store.close();
  });
});
