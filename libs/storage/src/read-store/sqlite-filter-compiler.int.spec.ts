import fc from 'fast-check';
import { find as mingoFind } from 'mingo';
import { filterMatcher, type Doc, type Filter, type Sort } from '@gensvc/event-sourcing';
import { SqliteDatabase } from '../sqlite/sqlite';
import { orderOf, whereOf, type CollectionShape } from './sqlite-filter-compiler';

const shape = (over: Partial<CollectionShape> = {}): CollectionShape => ({ arrays: new Set(), odd: new Set(), indexes: [], ...over });
/** Plain JSON data, as stored (generated records have no prototype). */
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/**
 * Against SQLite and the matcher the other stores follow: an exact clause selects exactly the
 * filter's documents, any other a superset of them; an ORDER BY orders as mingo sorts.
 */
describe('sqlite filter compiler on generated documents', () => {
  const scalar = fc.oneof(fc.constantFrom('a', 'b', 'B', 'ab', '', 'd1'), fc.integer({ min: -2, max: 2 }), fc.constant(0.5), fc.constant(null), fc.boolean());
  const docsArb = fc
    .array(
      fc.record(
        {
          a: scalar,
          b: fc.oneof(fc.integer({ min: -2, max: 2 }), fc.constantFrom('x', 'y')),
          o: fc.oneof(fc.record({ x: scalar }, { requiredKeys: [] }), scalar),
          tags: fc.array(scalar, { maxLength: 2 }),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 12 },
    )
    .map((docs) => json(docs.map((d, i) => ({ _id: `d${i}`, ...d }) as Doc)));
  const path = fc.constantFrom('a', 'b', 'o', 'o.x', 'tags', '_id');
  const condition = fc.oneof(
    scalar,
    fc.record({ $eq: scalar }),
    fc.record({ $ne: scalar }),
    fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte'), scalar).map(([op, v]) => ({ [op]: v })),
    fc.record({ $in: fc.array(scalar, { maxLength: 3 }) }),
    fc.record({ $nin: fc.array(scalar, { maxLength: 3 }) }),
    fc.record({ $exists: fc.boolean() }),
  );
  const { filter: filterTree } = fc.letrec<{ filter: Filter }>((tie) => ({
    filter: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.dictionary(path, condition, { minKeys: 1, maxKeys: 2 }) as fc.Arbitrary<Filter>,
      fc.record({ $and: fc.array(tie('filter'), { minLength: 1, maxLength: 2 }) }) as fc.Arbitrary<Filter>,
      fc.record({ $or: fc.array(tie('filter'), { minLength: 1, maxLength: 2 }) }) as fc.Arbitrary<Filter>,
    ),
  }));

  const filter = filterTree.map(json);

  /** The shape the store's catalogue records for these documents. */
  function shapeOf(docs: Doc[]): CollectionShape {
    const arrays = new Set<string>();
    const odd = new Set<string>();
    const walk = (v: Record<string, unknown>, prefix: string) => {
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === 'boolean') odd.add(prefix + k);
        if (x === null || typeof x !== 'object') continue;
        if (Array.isArray(x)) arrays.add(prefix + k);
        else {
          odd.add(prefix + k);
          walk(x as Record<string, unknown>, `${prefix + k}.`);
        }
      }
    };
    for (const d of docs) walk(d, '');
    return shape({ arrays, odd });
  }

  let db: SqliteDatabase;
  beforeAll(() => {
    db = new SqliteDatabase(':memory:');
    db.exec('CREATE TABLE docs (id TEXT NOT NULL PRIMARY KEY, body TEXT NOT NULL)');
  });
  afterAll(() => db.close());

  function load(docs: Doc[]): void {
    db.exec('DELETE FROM docs');
    const insert = db.prepare<[string, string]>('INSERT INTO docs (id, body) VALUES (?, ?)');
    for (const d of docs) insert.run(d._id, JSON.stringify(d));
  }

  it('selects exactly the matching documents, or a superset of them', () => {
    fc.assert(
      fc.property(docsArb, filter, (docs, f) => {
        load(docs);
        const where = whereOf(shapeOf(docs), f);
        const selected = new Set(db.prepare<unknown[], { id: string }>(`SELECT id FROM docs WHERE ${where.sql}`).all(...where.params).map((r) => r.id));
        const matching = docs.filter(filterMatcher(f)).map((d) => d._id);
        for (const id of matching) expect(selected).toContain(id);
        if (where.exact) expect(selected.size).toBe(matching.length);
      }),
      { numRuns: 1000 },
    );
  });

  it('orders as mingo sorts, where it orders at all', () => {
    const sortArb = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'o.x', '_id'), fc.constantFrom(1 as const, -1 as const)), { minLength: 1, maxLength: 2 }).map((keys) => Object.fromEntries(keys) as Sort);
    fc.assert(
      fc.property(docsArb, sortArb, (docs, sort) => {
        load(docs);
        const order = orderOf(shapeOf(docs), sort);
        fc.pre(order !== null);
        const got = db.prepare<[], { id: string }>(`SELECT id FROM docs ORDER BY ${order}`).all().map((r) => r.id);
        expect(got).toEqual((mingoFind(docs, {}).sort(sort).all() as Doc[]).map((d) => d._id));
      }),
      { numRuns: 500 },
    );
  });
});
