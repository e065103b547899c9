import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { MemoryReadStore, ReadStore, SubscriptionEngine } from '@gensvc/shared';
import { ADMIN_SERVER_OPTIONS, type AdminServerOptions } from '../../infrastructure/admin-server';
import { ReplayService } from './replay.service';

/**
 * The embedded read store starts empty in every process, so the API rebuilds every read
 * model at start. It does so through the replay path (staging store, then one switch),
 * which is several times faster than letting the live projection loop apply each event to
 * the read store (docs/benchmarks.md); the loop then continues from the replay's
 * checkpoints. If the rebuild fails, the live loop does the work as before.
 */
@Injectable()
export class StartupRebuild implements OnApplicationBootstrap {
  private readonly logger = new Logger('StartupRebuild');

  constructor(
    @Inject(ADMIN_SERVER_OPTIONS) private readonly options: AdminServerOptions,
    @Inject(ReadStore) private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly replays: ReplayService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.serve || !(this.readStore instanceof MemoryReadStore) || this.engine.health().started) return;
    if ((await this.readStore.collection('projection_checkpoints').count({})) > 0) return;
    try {
      const result = await this.replays.run({ record: false });
      this.logger.log(`read models rebuilt from ${result.events} events in ${result.seconds} s`);
    } catch (err) {
      this.logger.warn(`start-up rebuild failed (${(err as Error).message}); the projection loop catches up instead`);
    }
  }
}
