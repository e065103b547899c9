import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import { AppConfig } from '@gensvc/config';
import { ReadStore } from '@gensvc/event-sourcing';
import { Clock } from '@gensvc/kernel';
import { SharedCounters, type ModuleDependencies } from '@gensvc/http';
import { createLogger } from '@gensvc/logging';
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
 * `DATA_DIR/ratelimits.db`; kept in memory and reconciled every 200 ms. Their windows follow
 * the service clock (a test clock stands still, so a test's requests fall in one window).
 * Imports: the storage module. The rate limits and the identity context (failed sign-ins) import this module.
 */
@Module({})
export class SharedCountersModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: SharedCountersModule,
      imports: deps.imports,
      providers: [
        {
          provide: SharedCounters,
          inject: [AppConfig, ReadStore, Clock],
          useFactory: (config: AppConfig, readStore: ReadStore, clock: Clock) =>
            new ReconciledCounters(
              config.mongoUrl ? new ReadStoreCounterBackend(readStore) : new SqliteCounterBackend(join(config.dataDir, 'ratelimits.db')),
              createLogger(config.logLevel),
              200,
              () => clock.now().getTime(),
            ),
        },
        CountersLifecycle,
      ],
      exports: [SharedCounters],
    };
  }
}
