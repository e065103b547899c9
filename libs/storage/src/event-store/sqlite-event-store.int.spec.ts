import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { typescriptChildPreamble } from '@gensvc/event-sourcing/testing/typescript-child';
import { SqliteCheckpointStore, SqliteEventStore } from './sqlite-event-store';

/**
 * The server and the admin CLI share one SQLite file: separate OS processes append to the
 * same stream with optimistic concurrency, and no revision is lost or doubled.
 */
describe('SqliteEventStore across processes', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gensvc-es-mp-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A child process: compiles the store's TypeScript on the fly and appends `count` events with retry. */
  function writer(file: string, name: string, count: number): Promise<{ conflicts: number }> {
    const script = join(dir, 'writer.js');
    writeFileSync(
      script,
      `${typescriptChildPreamble()}
const { SqliteEventStore } = require(${JSON.stringify(join(__dirname, 'sqlite-event-store.ts'))});
const { ConcurrencyError } = require('@gensvc/kernel');
(async () => {
  const [file, name, count] = process.argv.slice(2);
  const store = new SqliteEventStore(file);
  let conflicts = 0;
  for (let i = 0; i < Number(count); i++) {
    for (;;) {
      const events = await store.readStream('counter-1');
      const expectedRevision = events.length ? events[events.length - 1].revision : 'no_stream';
      try {
        await store.appendToStream('counter-1', [{ type: 'Incremented', data: { by: name, i } }], { expectedRevision });
        break;
      } catch (err) {
        if (!(err instanceof ConcurrencyError)) throw err;
        conflicts++;
      }
    }
  }
  await store.close();
  process.stdout.write(JSON.stringify({ conflicts }));
})().catch((err) => { console.error(err); process.exit(1); });
`,
    );
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script, file, name, String(count)], { cwd: join(__dirname, '..', '..', '..', '..') });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.stderr.on('data', (d: Buffer) => (err += d));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`writer ${name} exited ${code}: ${err}`))));
    });
  }

  it('two processes appending to one stream keep every revision exactly once', async () => {
    const file = join(dir, 'events.db');
    await Promise.all([writer(file, 'a', 60), writer(file, 'b', 60)]);
    const store = new SqliteEventStore(file);
    try {
      const events = await store.readStream('counter-1');
      expect(events).toHaveLength(120);
      expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 120 }, (_, i) => BigInt(i)));
      expect(events.filter((e) => (e.data as { by: string }).by === 'a')).toHaveLength(60);
      const all = await store.readAll({ maxCount: 1000 });
      expect(all.map((e) => e.id)).toEqual(events.map((e) => e.id));
    } finally {
      await store.close();
    }
  }, 60_000);

  it('a store sees events another process appended without being told', async () => {
    const file = join(dir, 'seen.db');
    const reader = new SqliteEventStore(file);
    try {
      expect(await reader.headPosition()).toBe(-1n);
      await writer(file, 'w', 3);
      expect(await reader.headPosition()).toBe(3n);
      expect((await reader.readAll()).map((e) => e.revision)).toEqual([0n, 1n, 2n]);
    } finally {
      await reader.close();
    }
  }, 60_000);
});

/** Appends of one event-loop turn share a transaction; a failed one is rolled back alone. */
describe('SqliteEventStore group commit', () => {
  let dir: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gensvc-es-gc-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits the good appends of a batch and rejects only the conflicting one', async () => {
    await store.appendToStream('b-1', [{ type: 'Seeded', data: {} }]);
    const results = await Promise.allSettled([
      store.appendToStream('a-1', [{ type: 'One', data: { n: 1 } }, { type: 'Two', data: { n: 2 } }], { expectedRevision: 'no_stream' }),
      store.appendToStream('b-1', [{ type: 'Lost', data: {} }], { expectedRevision: 'no_stream' }),
      store.appendToStream('c-1', [{ type: 'Three', data: { n: 3 } }], { expectedRevision: 'no_stream' }),
      store.appendToStream('a-1', [{ type: 'Four', data: { n: 4 } }], { expectedRevision: 1n }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.name).toBe('ConcurrencyError');
    expect((await store.readStream('a-1')).map((e) => e.type)).toEqual(['One', 'Two', 'Four']);
    expect((await store.readStream('b-1')).map((e) => e.type)).toEqual(['Seeded']);
    expect((await store.readStream('c-1')).map((e) => e.type)).toEqual(['Three']);
    const all = await store.readAll();
    expect(all.map((e) => e.position)).toEqual([...all.map((e) => e.position)].sort((x, y) => (x < y ? -1 : 1)));
    expect(all).toHaveLength(5);
  });

  it('appends of consecutive turns, each on top of the one before, are answered in order, a stale one refused alone', async () => {
    const answered: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => answered.push(name), (e: Error) => answered.push(`${name}:${e.name}`));
    const appends: Promise<unknown>[] = [];
    // one append per event-loop turn, each on top of the one before (expected revision n - 1)
    for (let n = 0; n < 12; n++) {
      appends.push(track(`e${n}`, store.appendToStream('p-1', [{ type: 'Step', data: { n } }], { expectedRevision: n === 0 ? 'no_stream' : BigInt(n - 1) })));
      if (n === 5) appends.push(track('stale', store.appendToStream('p-1', [{ type: 'Stale', data: {} }], { expectedRevision: 0n })));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(appends);
    expect(answered).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'stale:ConcurrencyError', 'e6', 'e7', 'e8', 'e9', 'e10', 'e11']);
    const stream = await store.readStream('p-1');
    expect(stream.map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // the tail and the file agree
    const again = new SqliteEventStore(join(dir, 'events.db'));
    expect((await again.readStream('p-1')).map((e) => e.id)).toEqual(stream.map((e) => e.id));
    await again.close();
  });

  it('rejects an append whose event id already exists without losing its batch neighbours', async () => {
    await store.appendToStream('d-1', [{ type: 'First', data: {}, id: '00000000-0000-4000-8000-000000000001' }]);
    const results = await Promise.allSettled([
      store.appendToStream('d-2', [{ type: 'Dup', data: {}, id: '00000000-0000-4000-8000-000000000001' }]),
      store.appendToStream('d-3', [{ type: 'Fine', data: {} }]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(await store.readStream('d-2')).toEqual([]);
    expect((await store.readStream('d-3')).map((e) => e.type)).toEqual(['Fine']);
  });
});

/**
 * Reads are served from the parsed tail of the log when it covers them: whatever the mix of
 * this store's appends, another writer's appends and the tail forgetting old events, every
 * read equals a read of the file.
 */
describe('SqliteEventStore reads from memory', () => {
  const streams = ['a-1', 'b-1', 'c-1'];
  const op = fc.oneof(
    fc.record({ kind: fc.constant('ours' as const), stream: fc.constantFrom(...streams), count: fc.integer({ min: 1, max: 3 }), parallel: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('theirs' as const), stream: fc.constantFrom(...streams), count: fc.integer({ min: 1, max: 3 }), parallel: fc.constant(1) }),
  );

  it('agree with the file under interleaved writers and a small tail', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 12 }), async (ops, capacity) => {
        const dir = mkdtempSync(join(tmpdir(), 'gensvc-es-tail-'));
        const file = join(dir, 'events.db');
        const ours = new SqliteEventStore(file, undefined, { tailCapacity: capacity });
        const theirs = new SqliteEventStore(file, undefined, { commits: 'inline' });
        const plain = new SqliteEventStore(file, undefined, { commits: 'inline' }); // never appends: reads the file
        try {
          let n = 0;
          for (const o of ops) {
            const writer = o.kind === 'ours' ? ours : theirs;
            await Promise.all(
              Array.from({ length: o.parallel }, () =>
                writer.appendToStream(o.stream, Array.from({ length: o.count }, () => ({ type: 'Counted', data: { n: n++, by: o.kind } }))),
              ),
            );
            const head = await plain.headPosition();
            for (let after = -1n; after <= head; after++) {
              expect(await ours.readAll({ after, maxCount: 3 })).toEqual(await plain.readAll({ after, maxCount: 3 }));
            }
            for (const s of streams) {
              for (const from of [0n, 1n, 5n]) {
                expect(await ours.readStream(s, { fromRevision: from })).toEqual(await plain.readStream(s, { fromRevision: from }));
              }
            }
          }
          expect(await ours.readAll({ maxCount: 10_000 })).toHaveLength(n);
        } finally {
          await ours.close();
          await theirs.close();
          await plain.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('a read right after another process appended sees the new event', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gensvc-es-fresh-'));
    const file = join(dir, 'events.db');
    const ours = new SqliteEventStore(file);
    const theirs = new SqliteEventStore(file, undefined, { commits: 'inline' });
    try {
      await ours.appendToStream('w-1', [{ type: 'Opened', data: {} }]);
      expect((await ours.readStream('w-1')).map((e) => e.type)).toEqual(['Opened']);
      await theirs.appendToStream('w-1', [{ type: 'Credited', data: {} }], { expectedRevision: 0n });
      expect((await ours.readStream('w-1')).map((e) => e.type)).toEqual(['Opened', 'Credited']);
      expect((await ours.readStream('w-1', { fromRevision: 1n })).map((e) => e.type)).toEqual(['Credited']);
      await expect(ours.appendToStream('w-1', [{ type: 'Late', data: {} }], { expectedRevision: 0n })).rejects.toMatchObject({ name: 'ConcurrencyError' });
      await ours.appendToStream('w-1', [{ type: 'Reserved', data: {} }], { expectedRevision: 1n });
      expect((await ours.readStream('w-1')).map((e) => e.type)).toEqual(['Opened', 'Credited', 'Reserved']);
    } finally {
      await ours.close();
      await theirs.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('close waits for the appends already requested', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gensvc-es-close-'));
    const file = join(dir, 'events.db');
    const store = new SqliteEventStore(file);
    const appended = Array.from({ length: 50 }, (_, i) => store.appendToStream(`s-${i}`, [{ type: 'One', data: { i } }]));
    await store.close();
    await Promise.all(appended);
    const reopened = new SqliteEventStore(file);
    try {
      expect(await reopened.readAll({ maxCount: 100 })).toHaveLength(50);
    } finally {
      await reopened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteCheckpointStore', () => {
  it('keeps positions across connections and reopening, beside the events of the same file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gensvc-cp-'));
    const file = join(dir, 'events.db');
    const events = new SqliteEventStore(file);
    try {
      const writer = SqliteCheckpointStore.open(file);
      await writer.store('reactor:a', 5n);
      await writer.store('reactor:a', 7n);
      await writer.store('reactor:b', 3n);
      const reader = SqliteCheckpointStore.open(file);
      expect(await reader.load('reactor:a')).toBe(7n);
      await writer.close();
      await reader.close();
      const reopened = SqliteCheckpointStore.open(file);
      expect(await reopened.load('reactor:b')).toBe(3n);
      expect(await reopened.load('reactor:none')).toBeUndefined();
      await reopened.close();
      await events.appendToStream('x-1', [{ type: 'Still', data: {} }]);
      expect(await events.headPosition()).toBe(1n);
    } finally {
      await events.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
