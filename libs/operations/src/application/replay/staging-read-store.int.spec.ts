import fc from 'fast-check';
import { runCollectionOp, type CollectionOp } from '@gensvc/event-sourcing/testing/collection-ops';
import { type Filter } from '@gensvc/event-sourcing';
import { SqliteReadStore } from '@gensvc/storage';
import { StagingReadStore } from './staging-read-store';

const ids = fc.constantFrom('a', 'b', 'c', 'd');
const statuses = fc.constantFrom('new', 'done', null);
const emails = fc.constantFrom('x@e', 'y@e', 'z@e');
const tags = fc.constantFrom('t1', 't2');

const docArb = fc.record({
  _id: ids,
  _pos: fc.integer({ min: 0, max: 5 }),
  status: statuses,
  n: fc.integer({ min: 0, max: 5 }),
  email: emails,
  tags: fc.array(tags, { maxLength: 2 }),
  nested: fc.record({ k: fc.constantFrom('p', 'q') }),
});

const filterArb: fc.Arbitrary<Filter> = fc.oneof(
  ids.map((_id) => ({ _id })),
  fc.tuple(ids, fc.integer({ min: 0, max: 5 })).map(([_id, _pos]) => ({ _id, _pos })),
  statuses.map((status) => ({ status })),
  tags.map((t) => ({ tags: t })),
  fc.constantFrom('p', 'q').map((k) => ({ 'nested.k': k })),
  fc.integer({ min: 0, max: 5 }).map((n) => ({ n: { $gt: n } })),
  fc.tuple(ids, fc.integer({ min: 0, max: 6 })).map(([_id, p]) => ({ _id, _pos: { $lt: p } })),
  fc
    .tuple(fc.constantFrom('$eq', '$ne', '$lt', '$lte', '$gt', '$gte'), fc.constantFrom('n', '_pos', 'status', 'email', 'nested.k', 'tags', 'missing'), fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('done', 'new', 'y@e', 'p')))
    .map(([op, field, v]) => ({ [field]: { [op]: v } })),
  fc.constant({ n: { $gte: 1, $lt: 4 } }),
  fc.constant({ status: { $in: ['new', null] } }),
  fc.constant({ missing: null }),
  fc.constant({}),
);

const updateArb = fc.oneof(
  statuses.map((status) => ({ $set: { status } })),
  fc.integer({ min: -2, max: 2 }).map((by) => ({ $inc: { n: by } })),
  emails.map((email) => ({ $set: { email }, $setOnInsert: { n: 0 } })),
  tags.map((t) => ({ $push: { tags: t } })),
  fc.constantFrom(
    { $unset: { status: '' } },
    { $unset: { 'nested.k': '' } },
    { $unset: { 'deep.x': '' } },
    { $set: { 'nested.k': 'q' } },
    { $set: { 'deep.x.y': 1 } },
    { $set: { list: [1, { a: 2 }] } },
    { $inc: { 'deep.x.y': 2 } },
    { $inc: { 'missing.n': 1, n: 1 } },
    { $inc: { status: 1 } },
    { $inc: { 'tags.0': 1 } },
    { $set: { n: 1 }, $inc: { n: 1 } },
    { $set: { 'nested.k': 1, nested: {} } },
    { $set: { 'email.x': 1 } },
    { $set: { _pos: 3 }, $inc: { n: -1 } },
  ),
);

const opArb: fc.Arbitrary<CollectionOp> = fc.oneof(
  docArb.map((doc) => ({ op: 'insertOne' as const, doc })),
  fc.record({ filter: filterArb, doc: docArb, upsert: fc.boolean() }).map((r) => ({ op: 'replaceOne' as const, ...r })),
  fc.record({ filter: fc.oneof(ids.map((_id) => ({ _id })), filterArb), update: updateArb, upsert: fc.boolean() }).map((r) => ({ op: 'updateOne' as const, ...r })),
  fc.record({ filter: filterArb, update: updateArb }).map((r) => ({ op: 'updateMany' as const, ...r })),
  fc.record({ op: fc.constantFrom('deleteOne' as const, 'deleteMany' as const, 'findOne' as const, 'count' as const), filter: filterArb }),
  fc.record({ filter: filterArb, limit: fc.integer({ min: 0, max: 3 }) }).map((r) => ({ op: 'find' as const, ...r, sort: { _id: 1 as const } })),
  fc.constant({ op: 'uniqueEmail' as const }),
);

/** Against the embedded read store (SQLite): the semantics the staging store must keep. */
describe('StagingReadStore', () => {
  it('behaves like the embedded read store for any sequence of operations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
        const reference = SqliteReadStore.open(':memory:').collection('c');
        const staging = new StagingReadStore().collection('c');
        for (const op of ops) {
          expect(await runCollectionOp(staging, op)).toEqual(await runCollectionOp(reference, op));
        }
        expect(await staging.find({}, { sort: { _id: 1 } })).toEqual(await reference.find({}, { sort: { _id: 1 } }));
        expect([...staging.all()].map((d) => d._id)).toEqual((await reference.find({})).map((d) => d._id));
      }),
      { numRuns: 300 },
    );
  });
});
