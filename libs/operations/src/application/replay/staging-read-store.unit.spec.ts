import { StagingReadStore, copy } from './staging-read-store';

describe('StagingReadStore', () => {
  it('hands out copies, never its stored documents', async () => {
    const c = new StagingReadStore().collection('c');
    const doc = { _id: 'a', list: [1], nested: { x: 1 } };
    await c.insertOne(doc);
    doc.list.push(2);
    const read = (await c.findOne({ _id: 'a' }))!;
    expect(read).toEqual({ _id: 'a', list: [1], nested: { x: 1 } });
    (read.nested as { x: number }).x = 9;
    expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', list: [1], nested: { x: 1 } });
  });

  it('renames collections', async () => {
    const s = new StagingReadStore();
    await s.collection('a').insertOne({ _id: '1' });
    await s.renameCollection('a', 'b');
    expect(await s.listCollections()).toEqual(['b']);
    expect(await s.collection('b').count({})).toBe(1);
  });

  it('copies JSON-like values deeply and other objects structurally', () => {
    const date = new Date(0);
    const v = { a: [1, { b: 'x' }], d: date, n: null };
    const c = copy(v);
    expect(c).toEqual(v);
    expect(c.a).not.toBe(v.a);
    expect(c.d).not.toBe(date);
    expect(c.d).toEqual(date);
  });
});
