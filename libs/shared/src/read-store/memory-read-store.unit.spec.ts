import { DuplicateKeyError } from './read-store.port';
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
