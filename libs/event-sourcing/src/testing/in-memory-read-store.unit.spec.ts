import { DuplicateKeyError } from '../read-store/read-store.port';
import { readStoreContract } from './contracts/read-store.contract';
import { InMemoryReadStore } from './in-memory-read-store';

readStoreContract('in memory', async () => ({ store: new InMemoryReadStore() }));

describe('InMemoryReadStore beyond the contract', () => {
  it('counts a missing field of a unique index as null, as the embedded store does', async () => {
    const c = new InMemoryReadStore().collection('c');
    await c.createIndex({ keys: { email: 1 }, unique: true });
    await c.insertOne({ _id: '1' });
    await expect(c.insertOne({ _id: '2', email: null })).rejects.toBeInstanceOf(DuplicateKeyError);
    await c.insertOne({ _id: '3', email: 'a@example.com' });
  });

  it('refuses a unique index over documents that already collide, and a document without a string _id', async () => {
    const c = new InMemoryReadStore().collection('c');
    await c.insertOne({ _id: '1', k: 'same' });
    await c.insertOne({ _id: '2', k: 'same' });
    await expect(c.createIndex({ keys: { k: 1 }, unique: true })).rejects.toBeInstanceOf(DuplicateKeyError);
    await expect(c.insertOne({ _id: 3 } as never)).rejects.toThrow(/string _id/);
  });

  it('keeps what was written, not the caller’s object changed afterwards', async () => {
    const c = new InMemoryReadStore().collection('c');
    const doc = { _id: '1', tags: ['a'] };
    await c.insertOne(doc);
    doc.tags.push('b');
    expect(await c.findOne({ _id: '1' })).toEqual({ _id: '1', tags: ['a'] });
  });

  it('has no transactions and no change stamps (the engine treats it as it treats MongoDB)', () => {
    const store = new InMemoryReadStore();
    expect(store.transaction).toBeUndefined();
    expect(store.changeStamp).toBeUndefined();
  });

  it('refuses every call once closed', async () => {
    const store = new InMemoryReadStore();
    await store.close();
    await expect(store.collection('c').findOne({})).rejects.toThrow(/closed/);
    await expect(store.listCollections()).rejects.toThrow(/closed/);
  });
});
