import { filterMatcher } from '@gensvc/event-sourcing';
import { SqliteReadStore } from './sqlite-read-store';

/**
 * Searches (`$regex` over the substring-indexed fields) combined with a filter, sorted and
 * paged: whichever way the store reads them (the first rows in order with LIKE, an index in
 * order tested against the rows the substring index names, or those rows sorted), the page is
 * the one a scan of every document gives.
 */
describe('SqliteReadStore searches with a filter, sorted and paged', () => {
  const N = 6_000;
  const docs = Array.from({ length: N }, (_, i) => ({
    _id: `t${String(i).padStart(5, '0')}`,
    account_id: i % 7 === 0 ? 'acc_b' : 'acc_a',
    status: ['queued', 'succeeded', 'failed'][i % 3],
    title: `Task ${i < 3_000 ? 'alpha' : 'beta'} number ${i}`,
    ref: `ref_${(i * 7919) % 100_000}`,
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  }));
  let store: SqliteReadStore;

  beforeAll(async () => {
    store = SqliteReadStore.open(':memory:');
    const c = store.collection('tasks');
    await c.createIndex({ keys: { account_id: 1, created_at: -1, _id: -1 } });
    await c.createIndex({ keys: { account_id: 1, status: 1, created_at: -1 } });
    await c.createIndex({ keys: { title: 1, ref: 1 }, search: true });
    for (const d of docs) await c.insertOne(d);
  });
  afterAll(() => store.close());

  const cases: [string, string, string | undefined, number, number][] = [
    // literal, account, status, skip, limit
    ['alpha', 'acc_a', 'succeeded', 0, 30], // thousands of rows, none among the newest: an index in order
    ['alpha', 'acc_a', undefined, 10, 30],
    ['number 12', 'acc_a', 'succeeded', 0, 30], // a hundred rows (12, 120-129, 1200-1299): the rows it names
    ['number 12', 'acc_a', 'succeeded', 20, 30],
    ['number 4999', 'acc_a', undefined, 0, 30], // rare: every row the index names
    ['task number', 'acc_b', 'failed', 0, 30], // in every title: the first rows in order
    ['number 5', 'acc_b', 'queued', 0, 30],
    ['no such title', 'acc_a', 'queued', 0, 30],
  ];

  it.each(cases)('q=%p, account %p, status %p, skip %p, limit %p', async (literal, account, status, skip, limit) => {
    const filter = {
      account_id: account,
      ...(status ? { status } : {}),
      $or: ['title', 'ref'].map((f) => ({ [f]: { $regex: literal, $options: 'i' } })),
    };
    const match = filterMatcher(filter);
    const expected = docs
      .filter((d) => match(d))
      .sort((a, b) => (a.created_at < b.created_at ? 1 : -1))
      .slice(skip, skip + limit);
    const got = await store.collection('tasks').find(filter, { sort: { created_at: -1 }, skip, limit });
    expect(got.map((d) => d._id)).toEqual(expected.map((d) => d._id));
  });
});
