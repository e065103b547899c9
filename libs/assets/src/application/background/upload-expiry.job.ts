import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig, runsBackgroundWork } from '@gensvc/config';
import { Clock } from '@gensvc/kernel';
import { LeaseStore, SubscriptionEngine } from '@gensvc/event-sourcing';
import { UploadLimits } from '../../domain/limits';
import { ExpireUploadsHandler } from '../expire-uploads/expire-uploads.handler';

const TIMER_LEASE = 'timer:upload-expiry';

/**
 * Background job: every `expirySweepIntervalMs` sends ExpireUploads, which marks unfinished
 * uploads past their 15-minute validity as expired (UploadExpired); the storage cleanup then
 * removes their bytes. Reads show `expired` from the deadline on, whether or not the job ran yet. It runs
 * only in processes whose role runs background work (not `api`, not the admin CLI), and
 * fires once across them: a pass runs in the process that holds the `timer:upload-expiry`
 * lease, which its holder renews at every pass and gives back when it stops; another
 * process takes over then, or two intervals after the holder died.
 */
@Injectable()
export class UploadExpiryJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('UploadExpiry');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private readonly owner = `expiry-${process.pid}-${randomUUID()}`;

  constructor(
    private readonly expire: ExpireUploadsHandler,
    private readonly limits: UploadLimits,
    private readonly engine: SubscriptionEngine,
    private readonly leases: LeaseStore,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (!runsBackgroundWork(this.config.processRole)) return;
    this.timer = setInterval(() => {
      if (!this.engine.health().started) return;
      this.pass().catch((err: unknown) => this.logger.error(`upload expiry failed, retrying at the next pass: ${(err as Error).message}`));
    }, this.limits.expirySweepIntervalMs);
    this.timer.unref();
  }

  /** A timer pass: sweeps when this process holds the timer's lease (two intervals long). */
  private async pass(): Promise<void> {
    if (await this.leases.acquire(TIMER_LEASE, this.owner, 2 * this.limits.expirySweepIntervalMs)) await this.sweep();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    // Hand the timer over at once instead of after the lease's time to live.
    if (this.timer) await this.leases.release(TIMER_LEASE, this.owner).catch(() => undefined);
  }

  /** One pass; returns how many uploads it expired. */
  sweep(): Promise<number> {
    this.running ??= this.expire.execute({ type: 'ExpireUploads', data: {}, metadata: { now: this.clock.now() } }).finally(() => (this.running = undefined));
    return this.running;
  }
}
