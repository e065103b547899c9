import { AppError } from '../errors';
import { KeyedLock } from '../keyed-lock';
import type { Decider } from './decider';
import { CommandHandler } from './command-handler';
import { SqliteEventStore } from './sqlite-event-store';

type Ev = { type: 'Added'; data: { n: number } };
type Cmd = { type: 'Add'; data: { n: number; max: number } };
const counter: Decider<number, Cmd, Ev> = {
  initialState: () => 0,
  evolve: (s, e) => s + e.data.n,
  decide: (c, s) => {
    if (s + c.data.n > c.data.max) throw new AppError('CONFLICT', 'over the limit');
    return [{ type: 'Added', data: { n: c.data.n } }];
  },
};

describe('CommandHandler (per-stream cache and serialisation)', () => {
  let store: SqliteEventStore;
  beforeEach(() => (store = new SqliteEventStore(':memory:')));
  afterEach(() => store.close());

  it('serializes commands on one stream: 50 concurrent adds, no conflict, every limit respected', async () => {
    const h = new CommandHandler(store, counter, { retries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => h.handle('c-1', { type: 'Add', data: { n: 1, max: 40 } })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(40);
    expect((await h.load('c-1')).state).toBe(40);
    expect(await store.readStream('c-1')).toHaveLength(40);
  });

  it('reads only the events after the cached revision', async () => {
    const h = new CommandHandler(store, counter);
    await h.handle('c-2', { type: 'Add', data: { n: 2, max: 100 } });
    const reads = jest.spyOn(store, 'readStream');
    await h.handle('c-2', { type: 'Add', data: { n: 3, max: 100 } });
    expect(reads.mock.calls).toEqual([['c-2', { fromRevision: 1n }]]);
  });

  it("sees another process's appends and decides again on a conflict", async () => {
    const here = new CommandHandler(store, counter);
    const elsewhere = new CommandHandler(store, counter);
    await here.handle('c-3', { type: 'Add', data: { n: 1, max: 100 } });
    await elsewhere.handle('c-3', { type: 'Add', data: { n: 5, max: 100 } });
    const r = await here.handle('c-3', { type: 'Add', data: { n: 1, max: 7 } });
    expect(r.state).toBe(7);
    await expect(here.handle('c-3', { type: 'Add', data: { n: 1, max: 7 } })).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});

describe('KeyedLock', () => {
  it('runs work for one key in order, other keys in parallel, and goes on after a failure', async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    const step = (name: string, ms: number, fail = false) => async () => {
      await new Promise((r) => setTimeout(r, ms));
      order.push(name);
      if (fail) throw new Error(name);
    };
    await Promise.allSettled([lock.run('a', step('a1', 30, true)), lock.run('a', step('a2', 1)), lock.run('b', step('b1', 5))]);
    expect(order).toEqual(['b1', 'a1', 'a2']);
    expect(lock.size).toBe(0);
  });
});
