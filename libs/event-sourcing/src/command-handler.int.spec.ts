import { AppError } from '@gensvc/kernel';
import { KeyedLock } from './keyed-lock';
import type { Decider } from '@gensvc/kernel';
import { randomUUID } from 'node:crypto';
import { AppendChain, ChainDiverged } from './append-chain';
import { CommandHandler, handleCommand } from './command-handler';
import { SqliteEventStore } from '@gensvc/storage';
import type { AppendOptions, AppendResult } from './event-store.port';
import type { DomainEvent, NewEvent } from '@gensvc/kernel';
import { DelegatingEventStore } from './testing/delegating-event-store';

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

/**
 * The embedded store, with a hook run just before an append is queued: there, another process
 * writes the stream (a synchronous insert on the database, so it commits before the append).
 */
class InterleavedStore extends DelegatingEventStore {
  beforeNextAppend: (() => void) | undefined;
  constructor(override readonly inner: SqliteEventStore) {
    super(inner);
  }
  /** What another process would append: one `Added` event at the stream's next revision. */
  otherProcessAdds(stream: string, n: number): void {
    const db = this.inner.connection;
    const head = db.prepare('SELECT MAX(revision) AS r FROM events WHERE stream = ?').get(stream) as { r: bigint | null };
    db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)').run(
      randomUUID(), stream, (head.r ?? -1n) + 1n, 'Added', JSON.stringify({ n }), JSON.stringify({ schemaVersion: 1, occurredAt: new Date().toISOString() }),
    );
  }
  override appendToStream<E extends DomainEvent>(s: string, events: readonly NewEvent<E>[], o?: AppendOptions): Promise<AppendResult> {
    const hook = this.beforeNextAppend;
    this.beforeNextAppend = undefined;
    hook?.();
    return this.inner.appendToStream(s, events, o);
  }
}

describe('CommandHandler on a store with pipelined appends (the embedded one)', () => {
  let store: SqliteEventStore;
  beforeEach(() => (store = new SqliteEventStore(':memory:')));
  afterEach(() => store.close());
  const add = (n: number, max: number): Cmd => ({ type: 'Add', data: { n, max } });
  const total = async (stream: string) => (await store.readStream<Ev>(stream)).reduce((s, e) => s + e.data.n, 0);

  it('decides the next command on top of appends in flight: 40 adds go into a few group commits, not one each', async () => {
    const h = new CommandHandler(store, counter, { retries: 0 });
    let commits = 0;
    store.onAppended(() => commits++);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => h.handle('p-1', add(1, 40))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(40);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(Array(10).fill('CONFLICT'));
    expect(await total('p-1')).toBe(40);
    expect(commits).toBeLessThan(10);
  });

  it('a command decided on top of a failed append is not stored, even when the revision it expects is there (written by another process)', async () => {
    const s = new InterleavedStore(store);
    const h = new CommandHandler(s, counter);
    await h.handle('p-2', add(1, 3)); // total 1, cached
    // The first add below is queued right after another process adds 2 (total 3): it fails on
    // its revision; the second, decided on top of it, expects the revision the other process
    // took, and must fail too (its precondition is the first one's event).
    s.beforeNextAppend = () => s.otherProcessAdds('p-2', 2);
    const results = await Promise.allSettled([h.handle('p-2', add(1, 3)), h.handle('p-2', add(1, 3))]);
    expect(results.map((r) => (r.status === 'rejected' ? r.reason.code : 'stored'))).toEqual(['CONFLICT', 'CONFLICT']);
    expect(await total('p-2')).toBe(3);
    expect((await h.load('p-2')).state).toBe(3);
  });

  it('a refusal decided on top of an append that then fails is decided again', async () => {
    const s = new InterleavedStore(store);
    const h = new CommandHandler(s, counter);
    await h.handle('p-3', add(2, 3)); // total 2
    // The first add (2 → 3) is queued after another process took 1 away: it fails and is decided
    // again (1 → 2). The second was refused on top of it (3 + 1 > 3) and must not stay refused.
    s.beforeNextAppend = () => s.otherProcessAdds('p-3', -1);
    const results = await Promise.allSettled([h.handle('p-3', add(1, 3)), h.handle('p-3', add(1, 3))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(await total('p-3')).toBe(3);
  });
});

describe('a fresh stream (named after an id made just now)', () => {
  let store: SqliteEventStore;
  beforeEach(() => (store = new SqliteEventStore(':memory:')));
  afterEach(() => store.close());
  const add = (n: number, max: number): Cmd => ({ type: 'Add', data: { n, max } });

  it('is not read before the first decision', async () => {
    const reads = jest.spyOn(store, 'readStream');
    const r = await handleCommand(store, 'f-1', counter, add(2, 10), { fresh: true });
    expect(r.state).toBe(2);
    expect(reads).not.toHaveBeenCalled();
    await AppendChain.run(store, () => handleCommand(store, 'f-2', counter, add(3, 10), { fresh: true }));
    expect(reads).not.toHaveBeenCalled();
    expect((await store.readStream<Ev>('f-2')).map((e) => e.data.n)).toEqual([3]);
  });

  it('when the guess is wrong (the stream exists), handleCommand reads it and decides again, and a chained one fails its chain', async () => {
    await handleCommand(store, 'f-3', counter, add(5, 10));
    const r = await handleCommand(store, 'f-3', counter, add(4, 10), { fresh: true });
    expect(r.state).toBe(9);
    await expect(handleCommand(store, 'f-3', counter, add(4, 10), { fresh: true })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(AppendChain.run(store, () => handleCommand(store, 'f-3', counter, add(1, 10), { fresh: true }))).rejects.toBeInstanceOf(ChainDiverged);
    expect((await store.readStream<Ev>('f-3')).map((e) => e.data.n)).toEqual([5, 4]);
  });
});

describe('AppendChain (commands that follow one another in one group commit)', () => {
  let store: SqliteEventStore;
  beforeEach(() => (store = new SqliteEventStore(':memory:')));
  afterEach(() => store.close());
  const add = (n: number, max = 100): Cmd => ({ type: 'Add', data: { n, max } });

  it('chained commands answer before their commit, go in in order, and the chain resolves with the highest position once all are durable', async () => {
    const wallet = new CommandHandler(store, counter);
    const appended: string[] = [];
    const spy = jest.spyOn(store, 'appendToStream');
    const { value, position } = await AppendChain.run(store, async () => {
      const a = await handleCommand(store, 'x-1', counter, add(1));
      const b = await wallet.handle('w-1', add(2));
      const c = await handleCommand(store, 'y-1', counter, add(3));
      appended.push(...spy.mock.calls.map(([stream]) => stream));
      return [a, b, c];
    });
    expect(value.map((r) => [r.state, r.position])).toEqual([
      [1, undefined],
      [2, undefined],
      [3, undefined],
    ]);
    expect(appended).toEqual(['x-1', 'w-1', 'y-1']);
    // each append named the one before it as its precondition
    expect(spy.mock.calls.map(([, , options]) => options?.after?.length ?? 0)).toEqual([0, 1, 1]);
    const all = await store.readAll();
    expect(all.map((e) => e.streamName)).toEqual(['x-1', 'w-1', 'y-1']);
    expect(position).toBe(all[2].position);
  });

  it('a chained append that fails its precondition fails everything after it, and the chain rejects with ChainDiverged', async () => {
    await handleCommand(store, 'x-2', counter, add(1));
    // another writer (another process) gets in between the decision on x-2 and its append
    const racing = new DelegatingEventStore(store);
    racing.appendToStream = async (stream, events, options) => {
      if (stream === 'x-2') void store.appendToStream('x-2', [{ type: 'Added', data: { n: 10 } }], { expectedRevision: 0n });
      return store.appendToStream(stream, events, options);
    };
    const run = AppendChain.run(racing, async () => {
      const a = await handleCommand(racing, 'x-2', counter, add(1));
      await handleCommand(racing, 'y-2', counter, add(1));
      return a;
    });
    await expect(run).rejects.toBeInstanceOf(ChainDiverged);
    expect((await store.readStream<Ev>('x-2')).map((e) => e.data.n)).toEqual([1, 10]);
    expect(await store.readStream('y-2')).toEqual([]);
  });

  it('a second command on a stream of the chain waits for the chain first, so it decides on what is stored', async () => {
    const reached: number[] = [];
    await AppendChain.run(store, async () => {
      await handleCommand(store, 'x-3', counter, add(4, 5));
      await expect(handleCommand(store, 'x-3', counter, add(4, 5))).rejects.toMatchObject({ code: 'CONFLICT' });
      reached.push((await handleCommand(store, 'x-3', counter, add(1, 5))).state);
    });
    expect(reached).toEqual([5]);
    expect((await store.readStream<Ev>('x-3')).map((e) => e.data.n)).toEqual([4, 1]);
  });

  it('on a store without pipelined appends the work runs as it is, each command waiting for its append', async () => {
    const plain = new DelegatingEventStore(store);
    Object.defineProperty(plain, 'pipelinedAppends', { get: () => false });
    const { value, position } = await AppendChain.run(plain, () => handleCommand(plain, 'x-4', counter, add(2)));
    expect(value.position).toBeDefined();
    expect(position).toBeUndefined();
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
