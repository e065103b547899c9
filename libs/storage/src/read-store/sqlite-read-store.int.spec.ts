import { Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsProjection, SubscriptionEngine } from '@gensvc/event-sourcing';
import type { Projection } from '@gensvc/event-sourcing';
import { SqliteCheckpointStore, SqliteEventStore } from '../event-store/sqlite-event-store';
import { crashProjections } from '@gensvc/event-sourcing/testing/crash-projections';
import { typescriptChildPreamble } from '@gensvc/event-sourcing/testing/typescript-child';
import { ReadStoreLeaseStore } from '../leases/read-store-lease-store';
import { SqliteReadStore } from './sqlite-read-store';

const discovery = (projections: Projection[]) =>
  ({
    getProviders: ({ metadataKey }: { metadataKey: string }) => (metadataKey === AsProjection.KEY ? projections : []).map((instance) => ({ instance })),
  }) as unknown as DiscoveryService;

/** Projects the events of `dir/events.db` into `readFile` in this process, to the head; returns the read models. */
async function project(dir: string, readFile: string) {
  const events = new SqliteEventStore(join(dir, 'events.db'));
  const read = SqliteReadStore.open(readFile);
  const engine = new SubscriptionEngine(events, read, new SqliteCheckpointStore(events.connection), discovery(crashProjections()), new ReadStoreLeaseStore(read));
  try {
    await engine.start({ reactors: false });
    await engine.waitFor(await events.headPosition());
    return {
      counts: await read.collection('crash_counts').find({}, { sort: { _id: 1 } }),
      last: await read.collection('crash_last').find({}, { sort: { _id: 1 } }),
      checkpoints: (await read.collection('projection_checkpoints').find({}, { sort: { _id: 1 } })).map((c) => c.position),
    };
  } finally {
    await engine.stop();
    await read.close();
    await events.close();
  }
}

async function append(dir: string, from: number, count: number, chunk = 100): Promise<void> {
  const events = new SqliteEventStore(join(dir, 'events.db'));
  try {
    for (let i = from; i < from + count; i += chunk) {
      const batch = Array.from({ length: Math.min(chunk, from + count - i) }, (_, j) => ({ type: 'Tick', data: { key: `k${(i + j) % 7}`, value: i + j } }));
      await events.appendToStream(`tick-${i}`, batch);
    }
  } finally {
    await events.close();
  }
}

/**
 * The embedded read store on a file that processes share: each projection batch is one
 * transaction with its checkpoints, so a process killed inside a batch loses the batch whole,
 * and two processes projecting into one file apply every event once.
 */
describe('SqliteReadStore across processes', () => {
  let dir: string;
  let script: string;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    Logger.overrideLogger(false);
    dir = mkdtempSync(join(tmpdir(), 'gensvc-rs-mp-'));
    script = join(dir, 'projector.js');
    writeFileSync(
      script,
      `${typescriptChildPreamble()}
const { Logger } = require(${JSON.stringify(require.resolve('@nestjs/common'))});
const { AsProjection, SubscriptionEngine } = require('@gensvc/event-sourcing');
const { SqliteCheckpointStore, SqliteEventStore } = require(${JSON.stringify(join(__dirname, '..', 'event-store', 'sqlite-event-store.ts'))});
const { SqliteReadStore } = require(${JSON.stringify(join(__dirname, 'sqlite-read-store.ts'))});
const { crashProjections } = require('@gensvc/event-sourcing/testing/crash-projections');
Logger.overrideLogger(false);
(async () => {
  const [dir, stopAt, until] = process.argv.slice(2);
  const events = new SqliteEventStore(dir + '/events.db');
  const read = SqliteReadStore.open(dir + '/read.db');
  const projections = crashProjections(stopAt === '-' ? undefined : BigInt(stopAt), () => process.stdout.write('inside\\n'));
  const discovery = { getProviders: ({ metadataKey }) => (metadataKey === AsProjection.KEY ? projections : []).map((instance) => ({ instance })) };
  const engine = new SubscriptionEngine(events, read, new SqliteCheckpointStore(events.connection), discovery);
  process.stdout.write('started\\n');
  await engine.start({ reactors: false });
  while (engine.projectedPosition() < BigInt(until)) await new Promise((r) => setTimeout(r, 20));
  await engine.stop();
  await read.close();
  await events.close();
  process.stdout.write('done\\n');
})().catch((err) => { console.error(err); process.exit(1); });
`,
    );
  });
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a projecting process on `data`; resolves on each line it prints. */
  function projector(data: string, stopAt: string, until: number) {
    const child = spawn(process.execPath, [script, data, stopAt, String(until)], { cwd: join(__dirname, '..', '..', '..', '..') });
    children.push(child);
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d));
    const lines: string[] = [];
    const waiters: { line: string; resolve: () => void }[] = [];
    child.stdout!.on('data', (d: Buffer) => {
      for (const line of String(d).split('\n').filter(Boolean)) {
        lines.push(line);
        for (const w of waiters.filter((x) => x.line === line)) w.resolve();
      }
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return {
      child,
      exited,
      stderr: () => err,
      line: (line: string) =>
        lines.includes(line)
          ? Promise.resolve()
          : new Promise<void>((resolve, reject) => {
              waiters.push({ line, resolve });
              void exited.then((code) => reject(new Error(`projector exited ${code} before "${line}": ${err}`)));
            }),
    };
  }

  it('a restart after a SIGKILL inside a projection batch leaves the read models equal to a fresh replay', async () => {
    const data = join(dir, 'crash');
    await append(data, 0, 3000);
    // batches hold 2,000 events until the loop first caught up: position 2700 lies inside the second one
    const p = projector(data, '2700', 3000);
    await p.line('inside');
    p.child.kill('SIGKILL');
    expect(await p.exited).toBeNull();

    const read = SqliteReadStore.open(join(data, 'read.db'));
    const stored = await read.collection('projection_checkpoints').find({}, { sort: { _id: 1 } });
    const partial = await read.collection('crash_counts').find({});
    await read.close();
    // the first batch is committed, nothing of the second
    expect(stored.map((c) => c.position)).toEqual(['2000', '2000']);
    expect(partial.reduce((n, d) => n + (d.n as number), 0)).toBe(2000);

    const restarted = await project(data, join(data, 'read.db'));
    const fresh = await project(data, join(dir, 'crash-fresh.db'));
    expect(restarted).toEqual(fresh);
    expect(fresh.counts.reduce((n, d) => n + (d.n as number), 0)).toBe(3000);
    expect(fresh.checkpoints).toEqual(['3000', '3000']);
  }, 120_000);

  it('two processes projecting into one file while events arrive apply every event once', async () => {
    const data = join(dir, 'shared');
    await append(data, 0, 1);
    const total = 4000;
    const a = projector(data, '-', total);
    const b = projector(data, '-', total);
    await Promise.all([a.line('started'), b.line('started')]);
    await append(data, 1, total - 1, 50);
    await Promise.all([a.line('done'), b.line('done')]);
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);

    const shared = await project(data, join(data, 'read.db'));
    const fresh = await project(data, join(dir, 'shared-fresh.db'));
    expect(shared).toEqual(fresh);
    expect(shared.counts.reduce((n, d) => n + (d.n as number), 0)).toBe(total);
  }, 180_000);
});
