import { Global, Module, type DynamicModule, type OnApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { join } from 'node:path';
import { BlobStore } from './blob-store/blob-store.port';
import { FsBlobStore } from './blob-store/fs-blob-store';
import { Clock, SystemClock } from './clock';
import { AppConfig } from './config';
import { SubscriptionEngine } from './event-sourcing/engine';
import { CheckpointStore, EventStore } from './event-sourcing/event-store.port';
import { SqliteCheckpointStore, SqliteEventStore } from './event-sourcing/sqlite-event-store';
import { MemoryReadStore } from './read-store/memory-read-store';
import { ReadStore } from './read-store/read-store.port';

export type Stores = Awaited<ReturnType<typeof createStores>>;

/** Builds the event store, checkpoint store, read store and blob store the config asks for. */
export async function createStores(config: AppConfig): Promise<{
  events: EventStore;
  checkpoints: CheckpointStore;
  readStore: ReadStore;
  blobs: BlobStore;
}> {
  let events: EventStore;
  let checkpoints: CheckpointStore;
  if (config.eventStoreUrl) {
    throw new Error('EVENTSTORE_URL: the EventStoreDB adapter is not wired yet');
  } else {
    const sqlite = new SqliteEventStore(join(config.dataDir, 'events.db'));
    events = sqlite;
    checkpoints = new SqliteCheckpointStore(sqlite.connection);
  }
  let readStore: ReadStore;
  if (config.mongoUrl) {
    throw new Error('MONGO_URL: the MongoDB adapter is not wired yet');
  } else {
    readStore = new MemoryReadStore();
  }
  let blobs: BlobStore;
  if (config.s3) {
    throw new Error('S3_ENDPOINT: the MinIO adapter is not wired yet');
  } else {
    blobs = new FsBlobStore(join(config.dataDir, 'blobs'));
  }
  return { events, checkpoints, readStore, blobs };
}

@Injectable()
class StoreCloser implements OnApplicationShutdown {
  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    @Inject(ReadStore) private readonly readStore: ReadStore,
    @Inject(BlobStore) private readonly blobs: BlobStore,
    private readonly engine: SubscriptionEngine,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.engine.stop();
    await Promise.allSettled([this.events.close(), this.readStore.close(), this.blobs.close()]);
  }
}

/**
 * Global infrastructure: configuration, clock, the three stores and the subscription
 * engine. Every context module receives them by their port classes.
 */
@Global()
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
        SubscriptionEngine,
        StoreCloser,
      ],
      exports: [AppConfig, Clock, EventStore, CheckpointStore, ReadStore, BlobStore, SubscriptionEngine],
    };
  }
}
