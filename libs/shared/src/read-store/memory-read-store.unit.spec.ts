import fc from 'fast-check';
import { find } from 'mingo';
import { DuplicateKeyError, type Doc, type Sort } from './read-store.port';
import { MemoryReadStore } from './memory-read-store';

/** What the embedded read store does beyond the shared contract (see read-store.contract.ts). */
describe('MemoryReadStore specifics', () => {
  it('stores copies: changing an inserted or returned object changes nothing stored', async () => {
    const c = new MemoryReadStore().collection('c');
    const doc = { _id: '1', nested: { v: 1 }, list: [1] };
    await c.insertOne(doc);
    doc.nested.v = 2;
    doc.list.push(2);
    const read = (await c.findOne({ _id: '1' }))!;
    expect(read).toEqual({ _id: '1', nested: { v: 1 }, list: [1] });
    (read.nested as { v: number }).v = 3;
    expect((await c.find({}))[0]).toEqual({ _id: '1', nested: { v: 1 }, list: [1] });
  });

  it('an upsert through updateOne needs an _id equality in its filter', async () => {
    const c = new MemoryReadStore().collection('c');
    await expect(c.updateOne({ name: 'x' }, { $set: { n: 1 } }, { upsert: true })).rejects.toThrow(/_id/);
    await c.updateOne({ _id: { $eq: 'k' }, kind: 'a' }, { $set: { n: 1 } }, { upsert: true });
    expect(await c.findOne({ _id: 'k' })).toEqual({ _id: 'k', kind: 'a', n: 1 });
  });

  it('creating a unique index over existing duplicates fails and enforces nothing', async () => {
    const c = new MemoryReadStore().collection('c');
    await c.insertOne({ _id: '1', u: 1 });
    await c.insertOne({ _id: '2', u: 1 });
    await expect(c.createIndex({ keys: { u: 1 }, unique: true })).rejects.toBeInstanceOf(DuplicateKeyError);
    await c.insertOne({ _id: '3', u: 1 });
    expect(await c.count({ u: 1 })).toBe(3);
  });

  it('a collection exists once written; reading does not create it; drop removes it', async () => {
    const s = new MemoryReadStore();
    expect(await s.collection('read-only').find({})).toEqual([]);
    expect(await s.collection('read-only').count({})).toBe(0);
    expect(await s.listCollections()).toEqual([]);
    await s.collection('w').insertOne({ _id: '1' });
    await s.collection('i').createIndex({ keys: { a: 1 } });
    expect((await s.listCollections()).sort()).toEqual(['i', 'w']);
    await s.collection('w').drop();
    expect(await s.listCollections()).toEqual(['i']);
  });

  it('stores are independent of each other', async () => {
    const a = new MemoryReadStore();
    const b = new MemoryReadStore();
    await a.collection('c').insertOne({ _id: '1' });
    expect(await b.collection('c').count({})).toBe(0);
  });

  it('finds by _id without scanning other documents', async () => {
    const c = new MemoryReadStore().collection('c');
    for (let i = 0; i < 20_000; i++) await c.insertOne({ _id: `d${i}`, i });
    const t = process.hrtime.bigint();
    for (let i = 0; i < 2000; i++) await c.findOne({ _id: `d${i * 7}` });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    expect(ms).toBeLessThan(1000);
  });
});

/**
 * The fast paths (direct filter evaluation, index windows read in order) against the plain
 * mingo full scan over the same documents in the same insertion order.
 */
describe('MemoryReadStore fast paths equal the mingo full scan', () => {
  const ids = ['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'd10', 'd11'];
  const scalar = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('x', 'y', 'z', 'xa', 'Y') },
    { weight: 4, arbitrary: fc.integer({ min: -2, max: 4 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, true, 2.5) },
  );
  /** Mostly strings and numbers (indexable); sometimes null, missing, arrays or objects. */
  const mixed = fc.oneof(
    { weight: 12, arbitrary: scalar },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.array(scalar, { maxLength: 2 }) },
    { weight: 1, arbitrary: fc.record({ t: scalar }) },
  );
  /** Strings and numbers only: every index serves queries. */
  const regular = fc.oneof(fc.constantFrom('x', 'y', 'z', 'xa', 'Y'), fc.integer({ min: -2, max: 4 }));
  const makeDoc = (value: fc.Arbitrary<unknown>) =>
    fc.record({
      _id: fc.constantFrom(...ids),
      a: value,
      b: value,
      c: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('p', 'q', 'r') }, { weight: 1, arbitrary: value }),
      n: fc.oneof({ weight: 6, arbitrary: fc.record({ t: fc.integer({ min: 0, max: 3 }) }) }, { weight: 1, arbitrary: fc.record({ t: value }) }),
      s: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('Task number 7', 'task 17', 'other', 'NUMBER 70') }, { weight: 1, arbitrary: value }),
    });
  const toDoc = (d: Record<string, unknown>): Doc => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(d)) if (v !== undefined) out[k] = v;
    return out as Doc;
  };
  const fields = ['a', 'b', 'c', 'n.t', 's', '_id'];
  const field = fc.constantFrom(...fields);
  const dir = fc.constantFrom<1 | -1>(1, -1);
  const index = fc.uniqueArray(fc.tuple(field, dir), { minLength: 1, maxLength: 3, selector: ([f]) => f }).map((keys) => ({ keys: Object.fromEntries(keys) }));

  const condition: fc.Arbitrary<unknown> = fc.oneof(
    scalar,
    fc.record({ $eq: scalar }),
    fc.record({ $ne: scalar }),
    fc.record({ $in: fc.array(scalar, { maxLength: 3 }) }),
    fc.record({ $nin: fc.array(scalar, { maxLength: 3 }) }),
    fc.record({ $exists: fc.boolean() }),
    fc.record({ $gte: scalar }, { requiredKeys: [] }),
    fc.record({ $gt: fc.constantFrom('x', 'y', 0, 2), $lte: fc.constantFrom('y', 'z', 1, 3) }, { requiredKeys: [] }),
    fc.record({ $gte: fc.constantFrom('x', 'y', 0, 2), $lt: fc.constantFrom('y', 'z', 1, 3) }, { requiredKeys: [] }),
    fc.record({ $regex: fc.constantFrom('number 7', '^t', 'x'), $options: fc.constantFrom('i', '') }, { requiredKeys: ['$regex'] }),
    fc.record({ $size: fc.constant(1) }),
  );
  const simpleFilter = fc.dictionary(field, condition, { maxKeys: 3 });
  const filter = fc.oneof(
    { weight: 4, arbitrary: simpleFilter },
    { weight: 1, arbitrary: fc.tuple(simpleFilter, fc.array(simpleFilter, { minLength: 1, maxLength: 2 })).map(([f, or]) => ({ ...f, $or: or })) },
    { weight: 1, arbitrary: fc.array(simpleFilter, { minLength: 1, maxLength: 2 }).map((and) => ({ $and: and })) },
  );
  const sort = fc.option(
    fc.uniqueArray(fc.tuple(field, dir), { minLength: 1, maxLength: 3, selector: ([f]) => f }).map((keys) => Object.fromEntries(keys) as Sort),
    { nil: undefined },
  );
  const query = fc.record({
    filter,
    sort,
    skip: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
    limit: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
  });
  const writes = (value: fc.Arbitrary<unknown>) => fc.oneof(
    { weight: 5, arbitrary: makeDoc(value).map((d) => ({ op: 'put' as const, doc: toDoc(d) })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...ids), fc.constantFrom('a', 'b', 'c'), value === mixed ? scalar : value).map(([id, f, v]) => ({ op: 'set' as const, id, f, v })) },
    { weight: 1, arbitrary: fc.constantFrom(...ids).map((id) => ({ op: 'delete' as const, id })) },
    { weight: 1, arbitrary: index.map((spec) => ({ op: 'index' as const, spec })) },
  );

  it.each([
    ['any values', mixed],
    ['indexable values', regular],
  ])('find, count and findOne give the full-scan results after any writes (%s)', async (_label, value) => {
    await fc.assert(
      fc.asyncProperty(fc.array(index, { maxLength: 3 }), fc.array(writes(value), { maxLength: 40 }), fc.array(query, { minLength: 1, maxLength: 8 }), async (indexes, writes, queries) => {
        const c = new MemoryReadStore().collection('p');
        const reference = new Map<string, Doc>();
        for (const spec of indexes) await c.createIndex(spec);
        for (const w of writes) {
          if (w.op === 'put') {
            if (reference.has(w.doc._id)) {
              await c.replaceOne({ _id: w.doc._id }, w.doc);
              reference.set(w.doc._id, structuredClone(w.doc));
            } else {
              await c.insertOne(w.doc);
              reference.set(w.doc._id, structuredClone(w.doc));
            }
          } else if (w.op === 'set') {
            const r = await c.updateOne({ _id: w.id }, { $set: { [w.f]: w.v } });
            const old = reference.get(w.id);
            expect(r.matched).toBe(old ? 1 : 0);
            if (old) reference.set(w.id, { ...old, [w.f]: w.v });
          } else if (w.op === 'delete') {
            await c.deleteOne({ _id: w.id });
            reference.delete(w.id);
          } else {
            await c.createIndex(w.spec);
          }
        }
        for (const q of queries) {
          const all = [...reference.values()];
          let expected: Doc[] | Error;
          try {
            let cursor = find(all, q.filter);
            if (q.sort) cursor = cursor.sort(q.sort);
            if (q.skip) cursor = cursor.skip(q.skip);
            if (q.limit) cursor = cursor.limit(q.limit);
            expected = cursor.all() as Doc[];
          } catch (err) {
            expected = err as Error;
          }
          const options = { sort: q.sort, skip: q.skip, limit: q.limit };
          if (expected instanceof Error) {
            await expect(c.find(q.filter, options)).rejects.toThrow();
            continue;
          }
          expect(await c.find(q.filter, options)).toEqual(expected);
          expect(await c.count(q.filter)).toBe(find(all, q.filter).all().length);
          expect(await c.findOne(q.filter)).toEqual(find(all, q.filter).all()[0] ?? null);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('reads a sorted page of a large collection through an index without scanning it', async () => {
    const c = new MemoryReadStore().collection('big');
    await c.createIndex({ keys: { account: 1, at: -1, _id: -1 } });
    await c.createIndex({ keys: { account: 1, status: 1, at: -1 } });
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    for (let i = 0; i < 50_000; i++) await c.insertOne({ _id: `t${String(i).padStart(6, '0')}`, account: i % 5 ? 'acc_a' : 'acc_b', status: ['queued', 'failed', 'succeeded'][i % 3], at: at(i) });
    const sort = { at: -1, _id: -1 } as const;
    const t = process.hrtime.bigint();
    for (let i = 0; i < 200; i++) {
      const page = await c.find({ account: 'acc_a', status: 'failed', at: { $lt: at(40_000) } }, { sort, skip: 100, limit: 31 });
      expect(page).toHaveLength(31);
    }
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    expect(ms).toBeLessThan(500);
    // The same page as the full scan gives.
    const expected = find(
      (await c.find({})) as Doc[],
      { account: 'acc_a', status: 'failed', at: { $lt: at(40_000) } },
    )
      .sort(sort)
      .skip(100)
      .limit(31)
      .all();
    expect(await c.find({ account: 'acc_a', status: 'failed', at: { $lt: at(40_000) } }, { sort, skip: 100, limit: 31 })).toEqual(expected);
  });
});
