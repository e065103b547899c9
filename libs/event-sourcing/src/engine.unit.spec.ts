import { Logger } from '@nestjs/common';
import type { RecordedEvent } from '@gensvc/kernel';
import { ReadStoreLeaseStore } from '@gensvc/storage';
import { SubscriptionEngine } from './engine';
import { LeaseStore } from './lease-store.port';
import type { Reactor } from './reactor';
import { RequestContexts } from './request-context';
import { InMemoryCheckpointStore, InMemoryEventLog, InMemoryEventStore } from './testing/in-memory-event-store';
import { InMemoryReadStore } from './testing/in-memory-read-store';
import { added, discovery, orderTotals, Recording, subscriptionEngineProjections, type EngineStores } from './testing/subscription-engine-projections';

/** Fresh in-memory stores; "another writer" is a second event store on the same log. */
function inMemoryStores(): EngineStores & { readonly events: InMemoryEventStore; readonly checkpoints: InMemoryCheckpointStore } {
  const log = new InMemoryEventLog();
  const events = new InMemoryEventStore({ log });
  const elsewhere = new InMemoryEventStore({ log });
  const readStore = new InMemoryReadStore();
  return {
    events,
    readStore,
    checkpoints: new InMemoryCheckpointStore(),
    leases: new ReadStoreLeaseStore(readStore),
    appendElsewhere: async (stream, newEvents) => void (await elsewhere.appendToStream(stream, newEvents)),
    close: () => events.close(),
  };
}

subscriptionEngineProjections('the in-memory stores (a read store without transactions, as MongoDB)', inMemoryStores);

/**
 * Polls `check` every 10 ms until it holds; fails naming `what` after `timeoutMs`. It counts its
 * own polls, so it also works while a test freezes Date.
 */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  for (let waited = 0; !(await check()); waited += 10) {
    if (waited >= timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * With jest's fake timers installed: moves the clock on 10 ms at a time (running the timers due
 * and the promise callbacks they start) until `check` holds; fails naming `what` once
 * `limitMs` of fake time passed. Backoffs and lease retries then take no real time.
 */
async function advanceUntil(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  for (let advanced = 0; !check(); advanced += 10) {
    if (advanced >= limitMs) throw new Error(`not reached after ${limitMs} ms of fake time: ${what}`);
    await jest.advanceTimersByTimeAsync(10);
  }
}

/**
 * Lets the work already started finish. On the in-memory stores a subscription's step is
 * promise callbacks only (no I/O, no timer), so one turn of the event loop runs it to its end.
 */
const settled = () => new Promise((r) => setImmediate(r));

/** Leases that record every claim and its answer. */
class RecordingLeases extends LeaseStore {
  readonly claims: { key: string; owner: string; granted: boolean }[] = [];
  constructor(private readonly inner: LeaseStore) {
    super();
  }
  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const granted = await this.inner.acquire(key, owner, ttlMs);
    this.claims.push({ key, owner, granted });
    return granted;
  }
  renew(keys: readonly string[], owner: string, ttlMs: number) {
    return this.inner.renew(keys, owner, ttlMs);
  }
  release(key: string, owner: string) {
    return this.inner.release(key, owner);
  }
  holder(key: string) {
    return this.inner.holder(key);
  }
  close() {
    return this.inner.close();
  }
}

describe('SubscriptionEngine reactors', () => {
  let stores: ReturnType<typeof inMemoryStores>;
  let events: InMemoryEventStore;
  let checkpoints: InMemoryCheckpointStore;
  const engines: SubscriptionEngine[] = [];
  const engine = (projections: Recording[] | ReturnType<typeof orderTotals>[], reactors: Reactor[] = [], leases: LeaseStore = stores.leases) => {
    const e = new SubscriptionEngine(events, stores.readStore, checkpoints, discovery(projections, reactors), leases);
    engines.push(e);
    return e;
  };

  /**
   * Runs `test` with jest's fake timers (Date included), then stops the engines it started
   * while they are still installed (a loop may sleep on a fake timer) and puts real timers back.
   */
  const withFakeTimers = async (test: () => Promise<void>) => {
    jest.useFakeTimers();
    try {
      await test();
    } finally {
      const stopping = Promise.all(engines.splice(0).map((e) => e.stop()));
      await jest.advanceTimersByTimeAsync(10_000);
      await stopping;
      jest.useRealTimers();
    }
  };

  class Recorder implements Reactor {
    constructor(
      readonly name = 'recorder',
      readonly exclusive = false,
    ) {}
    readonly handles = ['ItemAdded'];
    readonly handled: string[] = [];
    readonly contexts: (string | undefined)[] = [];
    /** Date.now() at each failure and each delivery handled. */
    readonly failedAt: number[] = [];
    readonly handledAt: number[] = [];
    failNext = 0;
    async handle(event: RecordedEvent): Promise<void> {
      if (this.failNext > 0) {
        this.failNext--;
        this.failedAt.push(Date.now());
        throw new Error('downstream unavailable');
      }
      this.handled.push((event.data as { item: string }).item);
      this.handledAt.push(Date.now());
      this.contexts.push(RequestContexts.current()?.actor);
    }
  }

  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    stores = inMemoryStores();
    ({ events, checkpoints } = stores);
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.stop();
    await stores.close();
  });

  it('delivers stored events in order, in a request context of their own', async () => {
    await events.appendToStream('order-1', [added('a'), added('b')], {});
    const r = new Recorder();
    await engine([], [r]).start();
    await events.appendToStream('order-2', [added('c')]);
    await until(() => r.handled.length === 3, 'three events handled');
    expect(r.handled).toEqual(['a', 'b', 'c']);
    expect(r.contexts).toEqual(['system:recorder', 'system:recorder', 'system:recorder']);
  });

  it('keeps a durable checkpoint: a restarted reactor does not redo handled events', async () => {
    await events.appendToStream('order-1', [added('a'), added('b')]);
    const r1 = new Recorder();
    await engine([], [r1]).start();
    await until(() => r1.handled.length === 2, 'the first run handling both events');
    await engines[0].stop();
    expect(await checkpoints.load('reactor:recorder')).toBe(await events.headPosition());

    await events.appendToStream('order-1', [added('c')]);
    const r2 = new Recorder();
    await engine([], [r2]).start();
    // Events are delivered in order: once a later event is handled, a redelivery of a or b would have come before it.
    await events.appendToStream('order-1', [added('d')]);
    await until(() => r2.handled.includes('d'), 'the restarted reactor handling d');
    expect(r2.handled).toEqual(['c', 'd']);
  });

  it('retries a failing event with backoff and keeps the checkpoint before it', () =>
    withFakeTimers(async () => {
      await events.appendToStream('order-1', [added('a')]);
      const r = new Recorder();
      const e = engine([], [r]);
      await e.start();
      await advanceUntil(() => r.handled.length === 1, 'a handled');
      r.failNext = 2;
      const { position } = await events.appendToStream('order-1', [added('b')]);
      await advanceUntil(() => r.failedAt.length === 1, 'the first failure');
      expect(await checkpoints.load('reactor:recorder')).toBeLessThan(position);
      await advanceUntil(() => r.handled.length === 2, 'b handled after two failures');
      expect(r.handled).toEqual(['a', 'b']);
      // backoff (on the fake clock): 200 ms after the first failure, 400 ms after the second
      const [first, second] = r.failedAt;
      expect(second - first).toBeGreaterThanOrEqual(200);
      expect(r.handledAt[1] - second).toBeGreaterThanOrEqual(400);
      await e.stop();
      expect(await checkpoints.load('reactor:recorder')).toBe(position);
    }));

  it('stores its checkpoint at most every 250 ms, and when it stops', async () => {
    // Date stands still unless the test moves it; timers run.
    jest.useFakeTimers({ now: Date.now(), doNotFake: ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'nextTick', 'queueMicrotask', 'hrtime', 'performance'] });
    try {
      const checkpoint = () => checkpoints.load('reactor:recorder');
      const first = await events.appendToStream('order-1', [added('a')]);
      const r = new Recorder();
      const e = engine([], [r]);
      await e.start();
      await until(async () => (await checkpoint()) === first.position, 'the first batch stored');
      const { position } = await events.appendToStream('order-1', [added('b')]);
      await until(() => r.handled.length === 2, 'b handled');
      await settled();
      expect(await checkpoint()).toBe(first.position); // the clock stands still
      jest.setSystemTime(Date.now() + 250);
      const third = await events.appendToStream('order-1', [added('c')]);
      await until(async () => (await checkpoint()) === third.position, 'the batch of c stored, 250 ms after the first');
      expect(r.handled).toEqual(['a', 'b', 'c']);
      expect(third.position).toBeGreaterThan(position);
      jest.setSystemTime(Date.now() + 10); // less than 250 ms later
      const fourth = await events.appendToStream('order-1', [added('d')]);
      await until(() => r.handled.length === 4, 'd handled');
      await settled();
      expect(await checkpoint()).toBe(third.position);
      await e.stop();
      expect(await checkpoint()).toBe(fourth.position);
    } finally {
      jest.useRealTimers();
    }
  });

  it('runs an exclusive reactor in one process at a time (the others run every reactor); another takes over when it stops', () =>
    withFakeTimers(async () => {
      const leases = new RecordingLeases(new ReadStoreLeaseStore(new InMemoryReadStore()));
      const [x1, x2] = [new Recorder('once', true), new Recorder('once', true)];
      const [p1, p2] = [new Recorder('everywhere'), new Recorder('everywhere')];
      const e1 = engine([], [x1, p1], leases);
      const e2 = engine([], [x2, p2], leases);
      await Promise.all([e1.start(), e2.start()]);
      await events.appendToStream('order-1', ['a', 'b', 'c', 'd'].map(added));
      await advanceUntil(() => x1.handled.length + x2.handled.length >= 4 && p1.handled.length === 4 && p2.handled.length === 4, 'every reactor handling the four events');
      expect([...x1.handled, ...x2.handled]).toEqual(['a', 'b', 'c', 'd']);
      expect([x1.handled.length, x2.handled.length].sort()).toEqual([0, 4]);
      expect(p2.handled).toEqual(['a', 'b', 'c', 'd']);
      const [holder, holding, other] = x1.handled.length ? [e1, x1, x2] : [e2, x2, x1];
      // However often the other process asks (three seconds of its retries, one a second), it gets no lease and runs nothing.
      await jest.advanceTimersByTimeAsync(3_000);
      const claims = leases.claims.filter((c) => c.key === 'reactor:once');
      expect(new Set(claims.filter((c) => c.granted).map((c) => c.owner)).size).toBe(1);
      expect(claims.filter((c) => !c.granted).length).toBeGreaterThanOrEqual(3);
      expect(other.handled).toEqual([]);

      await holder.stop();
      await events.appendToStream('order-1', ['e', 'f'].map(added));
      // The other process takes the lease over (at its next try, a second after the last) and goes on from the stored checkpoint.
      await advanceUntil(() => other.handled.length === 2, 'the other process handling e and f');
      // In order: once a later event is handled, a redelivery of an earlier one would have come before it.
      await events.appendToStream('order-1', [added('g')]);
      await advanceUntil(() => other.handled.includes('g'), 'the other process handling g');
      expect(other.handled).toEqual(['e', 'f', 'g']);
      expect(holding.handled).toEqual(['a', 'b', 'c', 'd']);
    }));

  it('start({ reactors: false }) runs projections only', async () => {
    await events.appendToStream('order-1', [added('a')]);
    const r = new Recorder();
    const e = engine([orderTotals()], [r]);
    await e.start({ reactors: false });
    // A running reactor would be woken by this append; the projection's loop is.
    const { position } = await events.appendToStream('order-2', [added('b')]);
    await e.waitFor(position);
    await settled();
    expect(r.handled).toEqual([]);
    expect(await checkpoints.load('reactor:recorder')).toBeUndefined();
    expect(await stores.readStore.collection('order_totals').count({})).toBe(2);
  });

  it('refuses two subscriptions with one name', () => {
    expect(() => engine([new Recording('same')], [{ name: 'same', handles: [], handle: async () => undefined }]).discover()).toThrow(/same/);
  });
});
