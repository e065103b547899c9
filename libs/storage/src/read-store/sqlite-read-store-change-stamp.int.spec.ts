import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from './sqlite-read-store';

/**
 * `changeStamp` lets a cache of documents stay exact: it must change after every way a
 * document of the named collections can change (here or through another connection to the
 * file), and stay equal otherwise.
 */
describe('SqliteReadStore change stamps', () => {
  let dir: string;
  let store: SqliteReadStore;
  let other: SqliteReadStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gensvc-rs-stamp-'));
    store = SqliteReadStore.open(join(dir, 'read.db'));
    other = SqliteReadStore.open(join(dir, 'read.db'));
    await store.collection('keys').insertOne({ _id: 'k1', status: 'active' });
    await store.collection('keys').insertOne({ _id: 'k2', status: 'active' });
    await store.collection('tasks').insertOne({ _id: 't1', n: 1 });
  });
  afterEach(async () => {
    await store.close();
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const keys = () => store.collection('keys');

  it('stays equal across reads and writes of other collections', async () => {
    const before = store.changeStamp(['keys']);
    await keys().findOne({ _id: 'k1' });
    await keys().find({ status: 'active' });
    await store.collection('tasks').updateOne({ _id: 't1' }, { $inc: { n: 1 } });
    await store.collection('tasks').insertOne({ _id: 't2', n: 2 });
    expect(store.changeStamp(['keys'])).toBe(before);
    expect(store.changeStamp(['tasks'])).not.toBe(before);
  });

  const writes: [string, () => Promise<unknown>][] = [
    ['insertOne', () => keys().insertOne({ _id: 'k3', status: 'active' })],
    ['replaceOne', () => keys().replaceOne({ _id: 'k1' }, { _id: 'k1', status: 'revoked' })],
    ['updateOne', () => keys().updateOne({ _id: 'k1' }, { $set: { status: 'revoked' } })],
    ['updateMany', () => keys().updateMany({ status: 'active' }, { $set: { status: 'revoked' } })],
    ['deleteOne', () => keys().deleteOne({ _id: 'k1' })],
    ['deleteMany', () => keys().deleteMany({})],
    ['drop', () => keys().drop()],
    ['renameCollection into it', async () => {
      await store.collection('keys_next').insertOne({ _id: 'k9', status: 'active' });
      await store.renameCollection('keys_next', 'keys');
    }],
    ['a transaction (pending documents)', () => store.transaction(() => keys().updateOne({ _id: 'k2' }, { $set: { status: 'revoked' } }))],
    ['a commit of another connection', () => other.collection('keys').updateOne({ _id: 'k1' }, { $set: { status: 'revoked' } })],
    ['a commit of another connection to another collection (counted as a change of everything)', () => other.collection('tasks').insertOne({ _id: 't9' })],
  ];
  it.each(writes)('changes after %s', async (_name, write) => {
    const before = store.changeStamp(['keys']);
    await write();
    expect(store.changeStamp(['keys'])).not.toBe(before);
  });

  it('changes inside a transaction as soon as a pending document changes, and again after a rollback', async () => {
    const stamps: number[] = [store.changeStamp(['keys'])];
    await expect(
      store.transaction(async () => {
        await keys().updateOne({ _id: 'k1' }, { $set: { status: 'revoked' } });
        stamps.push(store.changeStamp(['keys']));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    stamps.push(store.changeStamp(['keys']));
    expect(new Set(stamps).size).toBe(3);
    expect(await keys().findOne({ _id: 'k1' })).toEqual({ _id: 'k1', status: 'active' });
  });
});
