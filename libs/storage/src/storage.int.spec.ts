import { Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FsBlobStore } from './blob-store/fs-blob-store';
import { MinioBlobStore } from './blob-store/minio-blob-store';
import { loadConfig } from '@gensvc/config';
import { AsProjection, SubscriptionEngine } from '@gensvc/event-sourcing';
import { documentProjection, type Projection } from '@gensvc/event-sourcing';
import { SqliteEventStore } from './event-store/sqlite-event-store';
import { SqliteReadStore } from './read-store/sqlite-read-store';
import { MongoReadStore } from './read-store/mongo-read-store';
import { createStores, type Stores } from './storage.module';

const discovery = (projections: Projection[]) =>
  ({ getProviders: ({ metadataKey }: { metadataKey: string }) => (metadataKey === AsProjection.KEY ? projections : []).map((instance) => ({ instance })) }) as unknown as DiscoveryService;

const counter = () =>
  documentProjection<{ n: number }>({
    name: 'counter',
    collection: 'counters',
    handles: ['Counted'],
    documentId: (e) => e.streamName,
    evolve: (doc) => ({ n: (doc?.n ?? 0) + 1 }),
  });

async function close(s: Stores) {
  await Promise.allSettled([s.events.close(), s.readStore.close(), s.blobs.close(), s.leases.close(), ...(s.checkpoints.close ? [s.checkpoints.close()] : [])]);
}

describe('createStores', () => {
  let dir: string;
  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gensvc-stores-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('uses the embedded stores when no server is configured', async () => {
    const stores = await createStores(loadConfig({ DATA_DIR: dir }));
    try {
      expect(stores.events).toBeInstanceOf(SqliteEventStore);
      expect(stores.readStore).toBeInstanceOf(SqliteReadStore);
      expect(stores.blobs).toBeInstanceOf(FsBlobStore);
      await stores.events.appendToStream('x-1', [{ type: 'A', data: {} }]);
      await stores.checkpoints.store('reactor:r', 0n);
      expect(await stores.checkpoints.load('reactor:r')).toBe(0n);
      // The embedded checkpoint store holds a connection of its own: it declares `close`, and
      // after it the store is closed (the event store, on the same file, is not).
      expect(stores.checkpoints.close).toEqual(expect.any(Function));
      await stores.checkpoints.close!();
      await expect(stores.checkpoints.load('reactor:r')).rejects.toThrow(/not open/);
      await stores.events.appendToStream('x-1', [{ type: 'A', data: {} }]);
    } finally {
      await close(stores);
    }
  });

  it('fails at start when a configured server does not answer', async () => {
    const config = loadConfig({ DATA_DIR: dir, MONGO_URL: 'mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=300' });
    await expect(createStores(config)).rejects.toThrow();
  }, 30_000);

  const mongoUrl = process.env.MONGO_URL;
  // Only when MONGO_URL is set.
  if (mongoUrl) describe('with MONGO_URL', () => {
    it('persists read models and their checkpoints: a restart resumes instead of rebuilding', async () => {
      const env = { DATA_DIR: dir, MONGO_URL: mongoUrl!, MONGO_DB: `gensvc_int_${randomUUID().slice(0, 8)}` };
      const first = await createStores(loadConfig(env));
      try {
        expect(first.readStore).toBeInstanceOf(MongoReadStore);
        await first.events.appendToStream('c-1', [{ type: 'Counted', data: {} }, { type: 'Counted', data: {} }]);
        const e1 = new SubscriptionEngine(first.events, first.readStore, first.checkpoints, discovery([counter()]), first.leases);
        await e1.start();
        await e1.stop();
        await first.checkpoints.store('reactor:saga', 1n);
      } finally {
        await close(first);
      }

      const second = await createStores(loadConfig(env));
      try {
        let applied = 0;
        const p = counter();
        const counting: Projection = { ...p, apply: async (e, t) => (applied++, p.apply(e, t)) };
        await second.events.appendToStream('c-1', [{ type: 'Counted', data: {} }]);
        const e2 = new SubscriptionEngine(second.events, second.readStore, second.checkpoints, discovery([counting]), second.leases);
        await e2.start();
        await e2.stop();
        expect(applied).toBe(1);
        expect((await second.readStore.collection('counters').findOne({ _id: 'c-1' }))!.n).toBe(3);
        expect(await second.checkpoints.load('reactor:saga')).toBe(1n);
      } finally {
        await (second.readStore as MongoReadStore).db.dropDatabase();
        await close(second);
      }
    });
  });

  const s3 = process.env.S3_ENDPOINT && process.env.S3_ACCESS_KEY && process.env.S3_SECRET_KEY && process.env.S3_BUCKET;
  // Only when the S3_* variables are set.
  if (s3) describe('with S3_*', () => {
    it('stores blobs in the bucket, creating it when missing', async () => {
      const bucket = `gensvc-int-${randomUUID().slice(0, 8)}`;
      const stores = await createStores(
        loadConfig({
          DATA_DIR: dir,
          S3_ENDPOINT: process.env.S3_ENDPOINT!,
          S3_ACCESS_KEY: process.env.S3_ACCESS_KEY!,
          S3_SECRET_KEY: process.env.S3_SECRET_KEY!,
          S3_BUCKET: bucket,
        }),
      );
      try {
        expect(stores.blobs).toBeInstanceOf(MinioBlobStore);
        await stores.blobs.put('k', Readable.from([Buffer.from('bytes')]));
        expect((await stores.blobs.stat('k'))!.size).toBe(5);
        await stores.blobs.delete('k');
      } finally {
        await close(stores);
      }
    });
  });
});
