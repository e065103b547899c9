import { randomUUID } from 'node:crypto';
import { DuplicateKeyError, type Doc, type ReadStore } from '../../read-store/read-store.port';

export interface ReadStoreFixture {
  readonly store: ReadStore;
  cleanup?(): Promise<void>;
}

interface Item extends Doc {
  _id: string;
  name: string;
  n: number;
  tags?: string[];
  at?: string;
  owner?: { id: string; tier: number };
  gone?: boolean | null;
}

const items: Item[] = [
  { _id: 'a', name: 'alpha', n: 1, tags: ['x', 'y'], at: '2026-01-01T00:00:00Z', owner: { id: 'o1', tier: 1 } },
  { _id: 'b', name: 'bravo', n: 2, tags: ['y'], at: '2026-01-02T00:00:00Z', owner: { id: 'o1', tier: 2 } },
  { _id: 'c', name: 'charlie', n: 3, at: '2026-01-03T00:00:00Z', owner: { id: 'o2', tier: 1 }, gone: null },
  { _id: 'd', name: 'delta', n: 4, tags: [], at: '2026-01-04T00:00:00Z', gone: true },
  { _id: 'e', name: 'Echo', n: 5, at: '2026-01-05T00:00:00Z', owner: { id: 'o2', tier: 3 } },
];

/**
 * The read store contract: Mongo semantics that projections and queries rely on. Collection
 * names are unique per run, so it also runs against a shared server.
 */
export function readStoreContract(name: string, makeFixture: () => Promise<ReadStoreFixture>): void {
  describe(`ReadStore contract: ${name}`, () => {
    let fixture: ReadStoreFixture;
    let store: ReadStore;
    const run = `t${randomUUID().slice(0, 8)}`;
    let n = 0;
    const fresh = () => `${run}_${++n}`;
    const ids = (docs: Doc[]) => docs.map((d) => d._id);

    beforeAll(async () => {
      fixture = await makeFixture();
      store = fixture.store;
    });

    afterAll(async () => {
      if (store) for (const c of await store.listCollections()) if (c.startsWith(run)) await store.collection(c).drop();
      await store?.close();
      await fixture?.cleanup?.();
    });

    async function seeded() {
      const c = store.collection<Item>(fresh());
      for (const i of items) await c.insertOne(i);
      return c;
    }

    describe('filters', () => {
      it.each([
        ['implicit equality', { name: 'bravo' }, ['b']],
        ['$eq', { n: { $eq: 3 } }, ['c']],
        ['$ne', { n: { $ne: 3 } }, ['a', 'b', 'd', 'e']],
        ['$gt', { n: { $gt: 3 } }, ['d', 'e']],
        ['$gte', { n: { $gte: 3 } }, ['c', 'd', 'e']],
        ['$lt', { n: { $lt: 3 } }, ['a', 'b']],
        ['$lte', { n: { $lte: 3 } }, ['a', 'b', 'c']],
        ['range on ISO strings', { at: { $gte: '2026-01-02T00:00:00Z', $lt: '2026-01-04T00:00:00Z' } }, ['b', 'c']],
        ['$in', { name: { $in: ['alpha', 'delta', 'zulu'] } }, ['a', 'd']],
        ['$nin', { name: { $nin: ['alpha', 'delta'] } }, ['b', 'c', 'e']],
        ['$exists true', { tags: { $exists: true } }, ['a', 'b', 'd']],
        ['$exists false', { tags: { $exists: false } }, ['c', 'e']],
        ['null matches missing and null', { gone: null }, ['a', 'b', 'c', 'e']],
        ['$regex anchored', { name: { $regex: '^[a-c]' } }, ['a', 'b', 'c']],
        ['$regex case-insensitive', { name: { $regex: '^e', $options: 'i' } }, ['e']],
        ['$or', { $or: [{ n: 1 }, { name: 'delta' }] }, ['a', 'd']],
        ['$and', { $and: [{ n: { $gt: 1 } }, { n: { $lt: 4 } }] }, ['b', 'c']],
        ['dotted path', { 'owner.id': 'o2' }, ['c', 'e']],
        ['array contains', { tags: 'y' }, ['a', 'b']],
        ['_id', { _id: 'c' }, ['c']],
        ['_id $in', { _id: { $in: ['e', 'a'] } }, ['a', 'e']],
        ['no match', { name: 'zulu' }, []],
      ])('%s', async (_label, filter, expected) => {
        const c = await seeded();
        expect(ids(await c.find(filter, { sort: { _id: 1 } }))).toEqual(expected);
        expect(await c.count(filter)).toBe(expected.length);
      });
    });

    describe('sort, skip and limit', () => {
      it('sorts ascending and descending, by several keys, then pages', async () => {
        const c = await seeded();
        expect(ids(await c.find({}, { sort: { n: -1 } }))).toEqual(['e', 'd', 'c', 'b', 'a']);
        expect(ids(await c.find({}, { sort: { 'owner.tier': 1, n: -1 } }))).toEqual(['d', 'c', 'a', 'b', 'e']);
        expect(ids(await c.find({}, { sort: { at: 1 }, skip: 1, limit: 2 }))).toEqual(['b', 'c']);
        expect(ids(await c.find({}, { sort: { at: 1 }, skip: 4, limit: 10 }))).toEqual(['e']);
        expect(ids(await c.find({}, { sort: { at: 1 }, skip: 5 }))).toEqual([]);
        expect(ids(await c.find({ n: { $gt: 1 } }, { sort: { n: 1 }, limit: 2 }))).toEqual(['b', 'c']);
      });

      it('findOne returns one match or null; documents are copies', async () => {
        const c = await seeded();
        const d = await c.findOne({ 'owner.id': 'o1', n: 2 });
        expect(d).toEqual(items[1]);
        expect(await c.findOne({ name: 'zulu' })).toBeNull();
        d!.name = 'changed';
        expect((await c.findOne({ _id: 'b' }))!.name).toBe('bravo');
      });
    });

    describe('writes', () => {
      it('insertOne refuses a duplicate _id', async () => {
        const c = await seeded();
        await expect(c.insertOne({ _id: 'a', name: 'again', n: 9 })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect((await c.findOne({ _id: 'a' }))!.name).toBe('alpha');
      });

      it('replaceOne replaces, misses, and upserts', async () => {
        const c = await seeded();
        expect(await c.replaceOne({ _id: 'a' }, { _id: 'a', name: 'alpha2', n: 10 })).toEqual({ matched: 1, upserted: false });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', name: 'alpha2', n: 10 });
        expect(await c.replaceOne({ _id: 'z' }, { _id: 'z', name: 'zulu', n: 26 })).toEqual({ matched: 0, upserted: false });
        expect(await c.findOne({ _id: 'z' })).toBeNull();
        expect(await c.replaceOne({ _id: 'z' }, { _id: 'z', name: 'zulu', n: 26 }, { upsert: true })).toEqual({ matched: 0, upserted: true });
        expect(await c.findOne({ _id: 'z' })).toEqual({ _id: 'z', name: 'zulu', n: 26 });
      });

      it('replaceOne is conditional on the whole filter (optimistic update)', async () => {
        const c = await seeded();
        expect((await c.replaceOne({ _id: 'b', n: 99 }, { _id: 'b', name: 'lost', n: 100 })).matched).toBe(0);
        expect((await c.findOne({ _id: 'b' }))!.name).toBe('bravo');
      });

      it('updateOne applies $set, $inc and $unset', async () => {
        const c = await seeded();
        expect(await c.updateOne({ _id: 'a' }, { $set: { name: 'A', 'owner.tier': 7 }, $inc: { n: 5 }, $unset: { tags: '' } })).toEqual({
          matched: 1,
          upserted: false,
        });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', name: 'A', n: 6, at: '2026-01-01T00:00:00Z', owner: { id: 'o1', tier: 7 } });
        expect(await c.updateOne({ _id: 'nope' }, { $set: { name: 'x' } })).toEqual({ matched: 0, upserted: false });
        expect(await c.count({})).toBe(5);
      });

      it('updateOne with upsert creates the document from the filter and the update', async () => {
        const c = store.collection<Item>(fresh());
        expect(await c.updateOne({ _id: 'k' }, { $inc: { n: 1 }, $set: { name: 'counter' } }, { upsert: true })).toEqual({
          matched: 0,
          upserted: true,
        });
        expect(await c.updateOne({ _id: 'k' }, { $inc: { n: 1 } }, { upsert: true })).toEqual({ matched: 1, upserted: false });
        expect(await c.findOne({ _id: 'k' })).toEqual({ _id: 'k', n: 2, name: 'counter' });
        await c.updateOne({ _id: 'k2' }, { $setOnInsert: { name: 'first' }, $inc: { n: 1 } }, { upsert: true });
        await c.updateOne({ _id: 'k2' }, { $setOnInsert: { name: 'second' }, $inc: { n: 1 } }, { upsert: true });
        expect(await c.findOne({ _id: 'k2' })).toEqual({ _id: 'k2', name: 'first', n: 2 });
      });

      it('updateMany, deleteOne and deleteMany report what they touched', async () => {
        const c = await seeded();
        expect(await c.updateMany({ 'owner.id': 'o1' }, { $set: { gone: false } })).toEqual({ matched: 2 });
        expect(await c.count({ gone: false })).toBe(2);
        expect(await c.deleteOne({ n: { $gte: 4 } })).toEqual({ deleted: 1 });
        expect(await c.deleteOne({ name: 'zulu' })).toEqual({ deleted: 0 });
        expect(await c.deleteMany({ n: { $lte: 2 } })).toEqual({ deleted: 2 });
        expect(await c.count({})).toBe(2);
      });

      it('stores nested objects, arrays, nulls, booleans and large integers as given', async () => {
        const c = store.collection(fresh());
        const doc = { _id: 'x', a: { b: [1, 'two', { c: null }], d: true }, big: 2 ** 50, neg: -3.5, s: '' };
        await c.insertOne(doc);
        expect(await c.findOne({ _id: 'x' })).toEqual(doc);
      });
    });

    describe('indexes', () => {
      it('a unique index refuses duplicates on insert, replace and update, with DuplicateKeyError', async () => {
        const c = store.collection<Item>(fresh());
        await c.createIndex({ keys: { name: 1 }, unique: true });
        await c.createIndex({ keys: { name: 1 }, unique: true }); // idempotent
        await c.createIndex({ keys: { n: -1 } });
        await c.insertOne({ _id: '1', name: 'same', n: 1 });
        await expect(c.insertOne({ _id: '2', name: 'same', n: 2 })).rejects.toBeInstanceOf(DuplicateKeyError);
        await c.insertOne({ _id: '2', name: 'other', n: 2 });
        await expect(c.replaceOne({ _id: '2' }, { _id: '2', name: 'same', n: 2 })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(c.updateOne({ _id: '2' }, { $set: { name: 'same' } })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(c.updateOne({ _id: '3' }, { $set: { name: 'same' } }, { upsert: true })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(ids(await c.find({}, { sort: { _id: 1 } }))).toEqual(['1', '2']);
        // The document itself may keep its value.
        await c.replaceOne({ _id: '1' }, { _id: '1', name: 'same', n: 10 });
        expect((await c.findOne({ _id: '1' }))!.n).toBe(10);
      });

      it('a compound unique index compares all its fields', async () => {
        const c = store.collection(fresh());
        await c.createIndex({ keys: { account: 1, key: 1 }, unique: true, name: 'account_key' });
        await c.insertOne({ _id: '1', account: 'a', key: 'k' });
        await c.insertOne({ _id: '2', account: 'b', key: 'k' });
        await expect(c.insertOne({ _id: '3', account: 'a', key: 'k' })).rejects.toBeInstanceOf(DuplicateKeyError);
      });
    });

    describe('collections', () => {
      it('renameCollection replaces the target at once, carrying documents and unique indexes', async () => {
        const live = store.collection<Item>(fresh());
        const rebuilt = store.collection<Item>(fresh());
        await live.insertOne({ _id: 'old', name: 'old', n: 1 });
        await rebuilt.createIndex({ keys: { name: 1 }, unique: true });
        await rebuilt.insertOne({ _id: 'new1', name: 'n1', n: 1 });
        await rebuilt.insertOne({ _id: 'new2', name: 'n2', n: 2 });
        await store.renameCollection(rebuilt.name, live.name);
        // A handle taken before the switch reads the new data.
        expect(ids(await live.find({}, { sort: { _id: 1 } }))).toEqual(['new1', 'new2']);
        expect(ids(await store.collection(live.name).find({}, { sort: { _id: 1 } }))).toEqual(['new1', 'new2']);
        await expect(live.insertOne({ _id: 'new3', name: 'n1', n: 3 })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await store.collection(rebuilt.name).count({})).toBe(0);
        const names = await store.listCollections();
        expect(names).toContain(live.name);
        expect(names).not.toContain(rebuilt.name);
      });

      it('renaming a collection that was never written empties the target', async () => {
        const live = store.collection(fresh());
        await live.insertOne({ _id: 'stale' });
        await store.renameCollection(fresh(), live.name);
        expect(await live.count({})).toBe(0);
      });

      it('drop removes documents and indexes', async () => {
        const c = store.collection(fresh());
        await c.createIndex({ keys: { u: 1 }, unique: true });
        await c.insertOne({ _id: '1', u: 1 });
        await c.drop();
        await c.drop(); // dropping a missing collection is fine
        expect(await c.count({})).toBe(0);
        await c.insertOne({ _id: '1', u: 1 });
        await c.insertOne({ _id: '2', u: 1 });
        expect(await c.count({ u: 1 })).toBe(2);
      });

      it('ping answers', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });
    });
  });
}
