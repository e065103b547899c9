import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsProjection, CheckpointStore, EventStore, ReadStore, SubscriptionEngine, ProjectionLagError, documentProjection, type Doc, type Projection, type ProjectionTarget } from '@gensvc/event-sourcing';
import { loadConfig } from '@gensvc/config';
import { type RecordedEvent } from '@gensvc/kernel';
import { StorageModule, type Stores } from '@gensvc/storage';
import { OperationsModule } from '../../operations.module';
import { ReplayService } from './replay.service';

/** A counter per stream; can be told to fail on one event or to yield between events. */
@Injectable()
@AsProjection()
class CounterProjection implements Projection {
  readonly name = 'test.counter';
  readonly collections = ['test_counters', 'test_totals'];
  readonly handles = ['Counted'];
  failOn: string | undefined;
  slow = false;
  private readonly perStream = documentProjection<{ count: number; last: number }>({
    name: 'test.counter',
    collection: 'test_counters',
    handles: ['Counted'],
    documentId: (e) => e.streamName,
    evolve: (doc, e) => ({ count: (doc?.count ?? 0) + 1, last: (e.data as { n: number }).n }),
  });

  async setup(target: ProjectionTarget): Promise<void> {
    await target.collection('test_totals').createIndex({ keys: { kind: 1 }, unique: true });
  }

  async apply(event: RecordedEvent, target: ProjectionTarget): Promise<void> {
    if (this.failOn === event.id) throw new Error('projection bug');
    if (this.slow) await new Promise((r) => setImmediate(r));
    await this.perStream.apply(event, target);
    // a second collection, kept idempotent with a position guard
    await target
      .collection('test_totals')
      .updateOne({ _id: 'all', pos: { $lt: Number(event.position) } }, { $inc: { count: 1 }, $set: { pos: Number(event.position), kind: 'all' } })
      .then(async (r) => {
        if (!r.matched && !(await target.collection('test_totals').findOne({ _id: 'all' }))) {
          await target.collection('test_totals').insertOne({ _id: 'all', count: 1, pos: Number(event.position), kind: 'all' });
        }
      });
  }
}

/** The same read store seen through another object, as a second process sees a shared MongoDB. */
class SharedStore extends ReadStore {
  constructor(private readonly inner: ReadStore) {
    super();
  }
  collection<T extends Doc = Doc>(name: string) {
    return this.inner.collection<T>(name);
  }
  renameCollection(from: string, to: string) {
    return this.inner.renameCollection(from, to);
  }
  listCollections() {
    return this.inner.listCollections();
  }
  ping() {
    return this.inner.ping();
  }
  close() {
    return Promise.resolve();
  }
}

@Module({ providers: [CounterProjection] })
class CounterModule {}

async function boot(dataDir: string, stores?: Stores): Promise<INestApplicationContext> {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const storage = StorageModule.forRoot(config);
  let builder = Test.createTestingModule({ imports: [storage, OperationsModule.register({ imports: [storage] }), CounterModule] });
  if (stores) builder = builder.overrideProvider('STORES').useValue(stores);
  const moduleRef = await builder.compile();
  moduleRef.useLogger(false);
  return moduleRef.init();
}

async function append(events: EventStore, stream: string, n: number, from = 0): Promise<RecordedEvent[]> {
  const news = Array.from({ length: n }, (_, i) => ({ type: 'Counted', data: { n: from + i } }));
  const { position } = await events.appendToStream(stream, news);
  return (await events.readStream(stream)).filter((e) => e.position <= position).slice(-n);
}

async function dump(store: ReadStore): Promise<unknown> {
  return {
    counters: await store.collection('test_counters').find({}, { sort: { _id: 1 } }),
    totals: await store.collection('test_totals').find({}, { sort: { _id: 1 } }),
    checkpoint: await store.collection('projection_checkpoints').findOne({ _id: 'test.counter' }),
  };
}

describe('ReplayService', () => {
  let dataDir: string;
  let app: INestApplicationContext;
  let events: EventStore;
  let store: ReadStore;
  let engine: SubscriptionEngine;
  let replays: ReplayService;
  let counter: CounterProjection;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gensvc-replay-'));
    app = await boot(dataDir);
    events = app.get(EventStore);
    store = app.get(ReadStore);
    engine = app.get(SubscriptionEngine);
    replays = app.get(ReplayService);
    counter = app.get(CounterProjection);
    await engine.start();
  });
  afterEach(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a failed replay changes nothing and leaves no collection behind', async () => {
    const first = await append(events, 'c-1', 30);
    await append(events, 'c-2', 20);
    await engine.waitFor(await events.headPosition());
    const before = await dump(store);
    counter.failOn = first[25].id;
    await expect(replays.run({ projections: ['test.counter'] })).rejects.toThrow('projection bug');
    expect(await dump(store)).toEqual(before);
    expect((await store.listCollections()).filter((c) => c.includes('__replay_'))).toEqual([]);
    expect(replays.current()).toBeUndefined(); // nothing is running any more
    // the live loop goes on, and a later replay works
    counter.failOn = undefined;
    await append(events, 'c-1', 5, 30);
    await engine.waitFor(await events.headPosition());
    expect(await store.collection('test_counters').findOne({ _id: 'c-1' })).toMatchObject({ count: 35, last: 34 });
    const result = await replays.run({ projections: ['test.counter'], record: false });
    expect(result).toEqual({ projections: ['test.counter'], events: 55, seconds: expect.any(Number) });
  });

  it('records the failure in the replay state', async () => {
    const [e] = await append(events, 'c-1', 1);
    counter.failOn = e.id;
    const state = replays.start({ projections: ['test.counter'] });
    expect(state.status).toBe('running');
    expect(() => replays.start()).toThrow(/still running/);
    // the replay ends in the background: wait until its state leaves running
    for (const started = Date.now(); replays.get(state.id)?.status === 'running'; ) {
      if (Date.now() - started > 5000) throw new Error('the replay is still running after 5 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(replays.current()).toBeUndefined();
    expect(replays.get(state.id)).toMatchObject({ status: 'failed', error: { code: 'INTERNAL', message: 'projection bug' }, finished_at: expect.any(String) });
  });

  it('keeps serving the old models during a replay and loses no event appended meanwhile', async () => {
    for (let s = 0; s < 10; s++) await append(events, `c-${s}`, 100);
    await engine.waitFor(await events.headPosition());
    counter.slow = true;
    const seen: number[] = [];
    const running = replays.run({ projections: ['test.counter'], record: false }, (st) => seen.push(st.events_done));
    let appended = 0;
    for (let i = 0; i < 20; i++) {
      await append(events, `c-${i % 3}`, 3, 1000 + i * 3);
      appended += 3;
      // reads see a complete model at every moment
      const total = await store.collection('test_totals').findOne({ _id: 'all' });
      expect(total?.count).toBeGreaterThanOrEqual(1000);
      await new Promise((r) => setTimeout(r, 5));
    }
    await running;
    await append(events, 'c-9', 2, 5000);
    await engine.waitFor(await events.headPosition());
    const counters = await store.collection('test_counters').find({}, { sort: { _id: 1 } });
    const expected = (s: number) => 100 + (s < 3 ? [7, 7, 6][s] * 3 : 0) + (s === 9 ? 2 : 0);
    expect(counters.map((d) => [d._id, d.count])).toEqual(Array.from({ length: 10 }, (_, s) => [`c-${s}`, expected(s)]));
    expect(await store.collection('test_totals').findOne({ _id: 'all' })).toMatchObject({ count: 1000 + appended + 2 });
    expect(seen.length).toBeGreaterThan(0);
    await engine.stop(); // stores the checkpoints of the last interval
    const cp = await store.collection('projection_checkpoints').findOne({ _id: 'test.counter' });
    expect(cp).toMatchObject({ position: String(await events.headPosition()), generation: expect.stringMatching(/^rpl_/) });
  });

  it('a replay by another process on a shared read store without transactions (MongoDB) is adopted by the running loop', async () => {
    // Two more applications on the same stores, seen through a store without transactions,
    // stand in for a server and the admin CLI beside it on one MongoDB database.
    await engine.stop();
    const stores = { events, readStore: new SharedStore(store), checkpoints: app.get(CheckpointStore), blobs: undefined } as unknown as Stores;
    const server = await boot(dataDir, stores);
    const serverEngine = server.get(SubscriptionEngine);
    await serverEngine.start();
    try {
      await append(events, 'c-1', 50);
      await serverEngine.waitFor(await events.headPosition());
      const cli = await boot(dataDir, stores);
      // corrupt the live model so the effect of the replay is visible
      await store.collection('test_counters').updateOne({ _id: 'c-1' }, { $set: { count: -1 } });
      // Events arriving right before the switch: the server's loop must not apply them to the
      // collections about to be replaced (it is held), but after the switch.
      const realRename = store.renameCollection.bind(store);
      let injected = false;
      const rename = jest.spyOn(store, 'renameCollection').mockImplementation(async (from: string, to: string) => {
        if (!injected) {
          injected = true;
          await append(events, 'c-1', 3, 100);
          // held by the replay: the server's loop does not apply them now
          await expect(serverEngine.waitFor(await events.headPosition(), 600)).rejects.toBeInstanceOf(ProjectionLagError);
        }
        return realRename(from, to);
      });
      await cli.get(ReplayService).run({ projections: ['test.counter'], record: false });
      rename.mockRestore();
      await serverEngine.waitFor(await events.headPosition());
      expect(await store.collection('test_counters').findOne({ _id: 'c-1' })).toMatchObject({ count: 53, last: 102 });
      // the server's loop notices the new generation at its next checkpoint and keeps going
      await append(events, 'c-1', 5, 200);
      await serverEngine.waitFor(await events.headPosition());
      await append(events, 'c-2', 1);
      await serverEngine.waitFor(await events.headPosition());
      expect(await store.collection('test_counters').findOne({ _id: 'c-1' })).toMatchObject({ count: 58, last: 204 });
      expect(await store.collection('test_totals').findOne({ _id: 'all' })).toMatchObject({ count: 59 });
      expect(await store.collection('projection_checkpoints').findOne({ _id: '~replay-hold' })).toBeNull();
      await cli.close();
    } finally {
      await server.close();
    }
  });

  it('a replay by another process on the same read.db is switched in one transaction and adopted by the running loop', async () => {
    await append(events, 'c-1', 50);
    await engine.waitFor(await events.headPosition());
    // the admin CLI beside the server: its own connections to events.db and read.db
    const cli = await boot(dataDir);
    const cliStore = cli.get(ReadStore);
    expect(cliStore).not.toBe(store);
    await store.collection('test_counters').updateOne({ _id: 'c-1' }, { $set: { count: -1 } });
    // Events arriving inside the switch: the server's loop cannot apply them to the collections
    // being replaced (the switch holds the file's write lock), but applies them after it.
    const realRename = cliStore.renameCollection.bind(cliStore);
    let injected = false;
    const rename = jest.spyOn(cliStore, 'renameCollection').mockImplementation(async (from: string, to: string) => {
      if (!injected) {
        injected = true;
        await append(events, 'c-1', 3, 100);
        await expect(engine.waitFor(await events.headPosition(), 600)).rejects.toBeInstanceOf(ProjectionLagError);
        expect(engine.projectedPosition()).toBeLessThan(await events.headPosition());
      }
      return realRename(from, to);
    });
    await cli.get(ReplayService).run({ projections: ['test.counter'], record: false });
    rename.mockRestore();
    await engine.waitFor(await events.headPosition());
    expect(await store.collection('test_counters').findOne({ _id: 'c-1' })).toMatchObject({ count: 53, last: 102 });
    await append(events, 'c-1', 5, 200);
    await engine.waitFor(await events.headPosition());
    expect(await store.collection('test_counters').findOne({ _id: 'c-1' })).toMatchObject({ count: 58, last: 204 });
    expect(await store.collection('test_totals').findOne({ _id: 'all' })).toMatchObject({ count: 58 });
    expect((await store.collection('projection_checkpoints').findOne({ _id: 'test.counter' }))!.generation).toMatch(/^rpl_/);
    await cli.close();
  });
});
