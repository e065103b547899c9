import { Global, Inject, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import { AppConfig, ReadStore, SharedCounters, createLogger } from '@gensvc/shared';
import { ReadStoreCounterBackend, SqliteCounterBackend } from './counter-backends';
import { ReconciledCounters } from './reconciled-counters';

/** Starts the background reconciliation with the shared store, and flushes at shutdown. */
@Injectable()
class CountersLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(SharedCounters) private readonly counters: SharedCounters) {}
  onModuleInit(): void {
    this.counters.start?.();
  }
  async onApplicationShutdown(): Promise<void> {
    await this.counters.stop?.();
  }
}

/**
 * The counters every process shares (SharedCounters): MongoDB when MONGO_URL is set, else
 * `DATA_DIR/ratelimits.db`; kept in memory and reconciled every 200 ms.
 */
@Global()
@Module({
  providers: [
    {
      provide: SharedCounters,
      inject: [AppConfig, ReadStore],
      useFactory: (config: AppConfig, readStore: ReadStore) =>
        new ReconciledCounters(config.mongoUrl ? new ReadStoreCounterBackend(readStore) : new SqliteCounterBackend(join(config.dataDir, 'ratelimits.db')), createLogger(config.logLevel)),
    },
    CountersLifecycle,
  ],
  exports: [SharedCounters],
})
export class SharedCountersModule {}
