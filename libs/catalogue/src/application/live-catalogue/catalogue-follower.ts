import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { EventStore } from '@gensvc/event-sourcing';
import { Catalogue } from '../../domain/catalogue';
import type { CatalogueVersionEvent } from '../../domain/catalogue-versions';
import { CATALOGUE_STREAM_NAME, versionOf } from '../catalogue-stream';

/** How often every process looks for a newly published version (a publish shows within this plus a read). */
export const FOLLOW_MS = 250;

/**
 * Keeps the process's `Catalogue` on the newest published version: reads the catalogue's
 * stream after the version it serves every 250 ms (one indexed read that finds nothing,
 * almost always) and swaps each new version in, so every process (API, worker, admin CLI)
 * serves a publish within a second, without a restart. A version this code cannot serve
 * (it does not validate any more) is logged and skipped; the one before stays in service.
 */
@Injectable()
export class CatalogueFollower implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Catalogue');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** The stream revision to read from: the one after the version in service. */
  private next: bigint;

  constructor(
    private readonly catalogue: Catalogue,
    @Inject(EventStore) private readonly events: EventStore,
  ) {
    this.next = BigInt(catalogue.version);
  }

  onApplicationBootstrap(): void {
    const tick = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.catchUp().finally(tick), FOLLOW_MS);
      this.timer.unref();
    };
    tick();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Reads the versions published since and serves the newest (one read at a time). */
  catchUp(): Promise<void> {
    this.running ??= this.read().finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<void> {
    let recorded;
    try {
      recorded = await this.events.readStream<CatalogueVersionEvent>(CATALOGUE_STREAM_NAME, { fromRevision: this.next });
    } catch (err) {
      this.logger.warn({ err }, 'reading the catalogue versions failed');
      return;
    }
    for (const e of recorded) {
      this.next = e.revision + 1n;
      if (e.type !== 'CataloguePublished' || e.data.version <= this.catalogue.version) continue;
      let version;
      try {
        version = versionOf(e.data);
      } catch (err) {
        this.logger.error({ err }, `catalogue version ${e.data.version} cannot be served; version ${this.catalogue.version} stays in service`);
        continue;
      }
      try {
        this.catalogue.replace(version);
      } catch (err) {
        this.logger.warn({ err }, `a listener of the catalogue failed on version ${e.data.version}`);
      }
      this.logger.log(`serving catalogue version ${e.data.version} (published ${e.data.published_at}, ${e.data.changes.length} changes)`);
    }
  }
}
