import fc from 'fast-check';
import { update as mingoUpdate } from 'mingo';
import { applyUpdateFast, cloneDocument } from './documents';
import type { Doc, Update } from './read-store.port';

const docArb = fc.record({
  _id: fc.constant('a'),
  status: fc.constantFrom('new', 'done', null, undefined),
  n: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant('x')),
  tags: fc.array(fc.constantFrom('t1', 't2'), { maxLength: 2 }),
  nested: fc.oneof(fc.record({ k: fc.constantFrom('p', 'q') }), fc.constant(null), fc.constant(5)),
  deep: fc.oneof(fc.constant(undefined), fc.record({ x: fc.record({ y: fc.integer({ min: 0, max: 3 }) }) })),
});

const updateArb: fc.Arbitrary<Update> = fc.oneof(
  fc.constantFrom('new', 'done', null).map((status) => ({ $set: { status } })),
  fc.integer({ min: -2, max: 2 }).map((by) => ({ $inc: { n: by } })),
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
    { $set: { _id: 'b' } },
    { $push: { tags: 't1' } },
    { $set: { a: 1 }, $unset: { b: '' }, $inc: { c: 2 } },
  ),
);

function outcome(apply: (d: Doc, u: Update) => void, doc: Doc, update: Update): unknown {
  const d = cloneDocument(doc);
  try {
    apply(d, update);
    return { doc: d };
  } catch {
    return 'threw';
  }
}

describe('applyUpdateFast', () => {
  it('gives the documents and the errors of mingo’s update for any update', () => {
    fc.assert(
      fc.property(docArb, updateArb, (doc, update) => {
        const fast = outcome(applyUpdateFast, doc as Doc, update);
        const mingo = outcome((d, u) => mingoUpdate(d, u as never), doc as Doc, update);
        expect(fast).toEqual(mingo);
      }),
      { numRuns: 2000 },
    );
  });

  it('copies the values it sets', () => {
    const value = { list: [1] };
    const doc: Doc = { _id: 'a' };
    applyUpdateFast(doc, { $set: { value } });
    value.list.push(2);
    expect(doc).toEqual({ _id: 'a', value: { list: [1] } });
  });
});
