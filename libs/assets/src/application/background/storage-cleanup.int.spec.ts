import { Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import { Readable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsReactor, SubscriptionEngine, type Reactor } from '@gensvc/event-sourcing';
import { type BlobStore } from '@gensvc/blob-store';
import {
  FsBlobStore,
  SqliteReadStore,
  SqliteCheckpointStore,
  SqliteEventStore,
  SqliteLeaseStore,
} from '@gensvc/storage';
import { StorageCleanupReactor, objectsFreedBy } from './storage-cleanup.reactor';

/** A blob store whose deletes fail while `down` is set (storage unavailable). */
class FlakyBlobs extends FsBlobStore {
  down = true;
  failedDeletes = 0;
  override async delete(key: string): Promise<void> {
    if (this.down) {
      this.failedDeletes++;
      throw new Error('storage unavailable');
    }
    return super.delete(key);
  }
}

/** Polls `check` every 25 ms; fails naming `what` after 5 s. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; !(await check()); i++) {
    if (i >= 200) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The reactor's durable checkpoint (-1n before its first). */
const checkpoint = async (engine: SubscriptionEngine, reactor: Reactor): Promise<bigint> => (await engine.reactorPositions()).get(reactor.name) ?? -1n;

describe('storage cleanup reactor', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gensvc-cleanup-'));
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  it('names the objects each event frees', () => {
    expect(objectsFreedBy({ type: 'AssetDeleted', data: { blob_key: 'assets/a' } })).toEqual(['assets/a']);
    expect(objectsFreedBy({ type: 'UploadExpired', data: { blob_keys: ['u/1', 'u/2'] } })).toEqual(['u/1', 'u/2']);
    expect(objectsFreedBy({ type: 'UploadReceived', data: { blob_key: 'u/2', superseded_blob_key: 'u/1' } })).toEqual(['u/1']);
    expect(objectsFreedBy({ type: 'UploadReceived', data: { blob_key: 'u/2', superseded_blob_key: null } })).toEqual([]);
    expect(objectsFreedBy({ type: 'UploadCompleted', data: {} })).toEqual([]);
  });

  it('retries while storage is unavailable and removes the bytes once it answers, exactly once per event', async () => {
    const blobs = new FlakyBlobs(join(dir, 'blobs'));
    await blobs.put('assets/ast_1', Readable.from([Buffer.from('bytes')]));
    const events = new SqliteEventStore(join(dir, 'events.db'));
    const reactor = new StorageCleanupReactor(blobs as BlobStore);
    const discovery = {
      getProviders: ({ metadataKey }: { metadataKey: string }) => (metadataKey === AsReactor.KEY ? [{ instance: reactor }] : []),
    } as unknown as DiscoveryService;
    const engine = new SubscriptionEngine(events, SqliteReadStore.open(':memory:'), new SqliteCheckpointStore(events.connection), discovery, new SqliteLeaseStore(join(dir, 'leases.db')));
    const handled = jest.spyOn(reactor, 'handle');
    try {
      await engine.start();
      const { position } = await events.appendToStream('asset-ast_1', [
        { type: 'AssetDeleted', data: { asset_id: 'ast_1', account_id: 'acc_1', blob_key: 'assets/ast_1', deleted_at: new Date().toISOString() } },
      ]);
      await until(() => blobs.failedDeletes >= 2, 'two deletes failed');
      expect(await blobs.stat('assets/ast_1')).not.toBeNull();
      expect(await checkpoint(engine, reactor)).toBeLessThan(position); // not past the event while it fails
      blobs.down = false;
      // Once the durable checkpoint passed the event, it is never delivered again.
      await until(async () => (await checkpoint(engine, reactor)) >= position, 'the checkpoint passed the event');
      expect(await blobs.stat('assets/ast_1')).toBeNull();
      expect(handled.mock.calls.length).toBe(blobs.failedDeletes + 1); // done: one delivery after the failed ones
    } finally {
      await engine.stop();
      await events.close();
    }
  });

  it('with two processes on one data directory, one of them deletes each freed object', async () => {
    const deletes: string[] = [];
    class CountingBlobs extends FsBlobStore {
      override async delete(key: string): Promise<void> {
        deletes.push(key);
        return super.delete(key);
      }
    }
    /** A process: its own connections to the shared files, its own reactor instance. */
    const process = () => {
      const events = new SqliteEventStore(join(dir, 'events.db'));
      const reactor = new StorageCleanupReactor(new CountingBlobs(join(dir, 'blobs')));
      const discovery = {
        getProviders: ({ metadataKey }: { metadataKey: string }) => (metadataKey === AsReactor.KEY ? [{ instance: reactor }] : []),
      } as unknown as DiscoveryService;
      const leases = new SqliteLeaseStore(join(dir, 'leases.db'));
      const engine = new SubscriptionEngine(events, SqliteReadStore.open(':memory:'), new SqliteCheckpointStore(events.connection), discovery, leases);
      return { events, engine, leases };
    };
    const blobs = new FsBlobStore(join(dir, 'blobs'));
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'].map((k) => `assets/ast_${k}`);
    for (const key of keys) await blobs.put(key, Readable.from([Buffer.from(key)]));
    const [one, two] = [process(), process()];
    try {
      await Promise.all([one.engine.start(), two.engine.start()]);
      let last = -1n;
      for (const key of keys) {
        const id = key.slice('assets/'.length);
        ({ position: last } = await one.events.appendToStream(`asset-${id}`, [
          { type: 'AssetDeleted', data: { asset_id: id, account_id: 'acc_1', blob_key: key, deleted_at: new Date().toISOString() } },
        ]));
      }
      // The checkpoint both processes share passed the events: none is delivered again.
      const reactor = one.engine.listReactors()[0];
      await until(async () => (await checkpoint(one.engine, reactor)) >= last, 'the checkpoint passed the events');
      expect([...deletes].sort()).toEqual(keys);
      for (const key of keys) expect(await blobs.stat(key)).toBeNull();
    } finally {
      for (const p of [one, two]) {
        await p.engine.stop();
        await p.leases.close();
        await p.events.close();
      }
    }
  });
});
