import { Module, type DynamicModule, type OnApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { join } from 'node:path';
import { BlobStore } from '@gensvc/blob-store';
import { ensurePrivateDir } from '@gensvc/config';
import { FsBlobStore } from './blob-store/fs-blob-store';
import { MinioBlobStore } from './blob-store/minio-blob-store';
import { Clock, SystemClock } from '@gensvc/kernel';
import { AppConfig } from '@gensvc/config';
import { SubscriptionEngine } from '@gensvc/event-sourcing';
import { CheckpointStore, EventStore } from '@gensvc/event-sourcing';
import { EsdbEventStore } from './event-store/esdb-event-store';
import { SqliteCheckpointStore, SqliteEventStore } from './event-store/sqlite-event-store';
import { MongoCheckpointStore, MongoReadStore } from './read-store/mongo-read-store';
import { ReadStore } from '@gensvc/event-sourcing';
import { SqliteReadStore } from './read-store/sqlite-read-store';
import { ConsumerGroups } from '@gensvc/event-sourcing';
import { EsdbConsumerGroups } from './event-store/esdb-consumer-groups';
import { LeaseStore } from '@gensvc/event-sourcing';
import { ReadStoreLeaseStore } from './leases/read-store-lease-store';
import { SqliteLeaseStore } from './leases/sqlite-lease-store';

export type Stores = Awaited<ReturnType<typeof createStores>>;

/**
 * Builds the event store, checkpoint store, read store and blob store the config asks for:
 * EventStoreDB when EVENTSTORE_URL is set, else SQLite under DATA_DIR; MongoDB when MONGO_URL
 * is set, else SQLite in DATA_DIR/read.db (read models and their checkpoints persist either way); MinIO
 * when S3_* are set, else files under DATA_DIR/blobs. Reactor checkpoints live with the
 * events on SQLite, in MongoDB when it is configured, else in DATA_DIR/checkpoints.db.
 */
export async function createStores(config: AppConfig): Promise<{
  events: EventStore;
  checkpoints: CheckpointStore;
  readStore: ReadStore;
  blobs: BlobStore;
  leases: LeaseStore;
  /** Competing consumers (EventStoreDB persistent subscriptions); null on the embedded event store. */
  consumerGroups: ConsumerGroups | null;
}> {
  const opened: { close(): Promise<void> }[] = [];
  // The embedded stores live under DATA_DIR, which is the service's alone (0700).
  if (!config.mongoUrl || !config.eventStoreUrl || !config.s3) ensurePrivateDir(config.dataDir);
  try {
    let readStore: ReadStore;
    let mongo: MongoReadStore | undefined;
    if (config.mongoUrl) {
      mongo = await MongoReadStore.connect(config.mongoUrl, config.mongoDb);
      opened.push(mongo);
      readStore = mongo;
    } else {
      readStore = opening(SqliteReadStore.open(join(config.dataDir, 'read.db'), { cacheMb: config.readCacheMb }), opened);
    }
    let events: EventStore;
    let checkpoints: CheckpointStore;
    let consumerGroups: ConsumerGroups | null = null;
    if (config.eventStoreUrl) {
      const esdb = new EsdbEventStore(config.eventStoreUrl);
      opened.push(esdb);
      await esdb.ping();
      events = esdb;
      consumerGroups = opening(new EsdbConsumerGroups(config.eventStoreUrl), opened);
      checkpoints = mongo ? new MongoCheckpointStore(mongo.db) : opening(SqliteCheckpointStore.open(join(config.dataDir, 'checkpoints.db')), opened);
    } else {
      const sqlite = new SqliteEventStore(join(config.dataDir, 'events.db'));
      opened.push(sqlite);
      events = sqlite;
      checkpoints = opening(SqliteCheckpointStore.open(join(config.dataDir, 'events.db')), opened);
    }
    let blobs: BlobStore;
    if (config.s3) {
      const minio = new MinioBlobStore(config.s3);
      await minio.ping();
      blobs = minio;
    } else {
      ensurePrivateDir(join(config.dataDir, 'blobs'));
      blobs = new FsBlobStore(join(config.dataDir, 'blobs'));
    }
    // Leases are shared by every process on the same stores: in MongoDB when it is
    // configured, else in DATA_DIR/leases.db (processes on one machine).
    const leases = mongo ? new ReadStoreLeaseStore(mongo) : opening(new SqliteLeaseStore(join(config.dataDir, 'leases.db')), opened);
    return { events, checkpoints, readStore, blobs, leases, consumerGroups };
  } catch (err) {
    await Promise.allSettled(opened.map((s) => s.close()));
    throw err;
  }
}


/** Registers a store for closing when the start fails later. */
function opening<T extends { close(): Promise<void> }>(store: T, opened: { close(): Promise<void> }[]): T {
  opened.push(store);
  return store;
}

@Injectable()
class StoreCloser implements OnApplicationShutdown {
  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    @Inject(ReadStore) private readonly readStore: ReadStore,
    @Inject(BlobStore) private readonly blobs: BlobStore,
    @Inject(CheckpointStore) private readonly checkpoints: CheckpointStore,
    @Inject(LeaseStore) private readonly leases: LeaseStore,
    @Inject('STORES') private readonly stores: Stores,
    private readonly engine: SubscriptionEngine,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.engine.stop();
    await Promise.allSettled([
      this.events.close(),
      this.readStore.close(),
      this.blobs.close(),
      this.leases.close(),
      ...(this.stores.consumerGroups ? [this.stores.consumerGroups.close()] : []),
      ...(this.checkpoints.close ? [this.checkpoints.close()] : []),
    ]);
  }
}

/**
 * The infrastructure an app composes: configuration, clock, the stores and the subscription
 * engine, exported by their port classes. Not global: the app builds this dynamic module once
 * and passes that same object in the `imports` of every module that needs it (one instance of
 * each store, one connection each).
 */
@Module({})
export class StorageModule {
  static forRoot(config: AppConfig, overrides: { clock?: Clock } = {}): DynamicModule {
    return {
      module: StorageModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useValue: overrides.clock ?? new SystemClock() },
        { provide: 'STORES', useFactory: () => createStores(config) },
        { provide: EventStore, useFactory: (s: Stores) => s.events, inject: ['STORES'] },
        { provide: CheckpointStore, useFactory: (s: Stores) => s.checkpoints, inject: ['STORES'] },
        { provide: ReadStore, useFactory: (s: Stores) => s.readStore, inject: ['STORES'] },
        { provide: BlobStore, useFactory: (s: Stores) => s.blobs, inject: ['STORES'] },
        { provide: LeaseStore, useFactory: (s: Stores) => s.leases, inject: ['STORES'] },
        // null on the embedded event store: work that needs competing consumers uses leases there.
        { provide: ConsumerGroups, useFactory: (s: Stores) => s.consumerGroups, inject: ['STORES'] },
        SubscriptionEngine,
        StoreCloser,
      ],
      exports: [AppConfig, Clock, EventStore, CheckpointStore, ReadStore, BlobStore, LeaseStore, ConsumerGroups, SubscriptionEngine],
    };
  }
}
