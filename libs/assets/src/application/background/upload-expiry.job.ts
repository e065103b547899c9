import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SubscriptionEngine } from '@gensvc/shared';
import { UploadLimits } from '../../domain/limits';
import { UploadsService } from '../uploads/uploads.service';

/**
 * Background job: every `expirySweepIntervalMs` marks unfinished uploads past their
 * 15-minute validity as expired (UploadExpired); the storage cleanup then removes their
 * bytes. Reads show `expired` from the deadline on, whether or not the job ran yet. It runs
 * only in the process that runs the subscriptions (the server, not the admin CLI).
 */
@Injectable()
export class UploadExpiryJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('UploadExpiry');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly uploads: UploadsService,
    private readonly limits: UploadLimits,
    private readonly engine: SubscriptionEngine,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (!this.engine.health().started) return;
      this.sweep().catch((err: unknown) => this.logger.error(`upload expiry failed, retrying at the next pass: ${(err as Error).message}`));
    }, this.limits.expirySweepIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): Promise<unknown> | void {
    if (this.timer) clearInterval(this.timer);
    return this.running;
  }

  /** One pass; returns how many uploads it expired. */
  sweep(): Promise<number> {
    this.running ??= this.uploads.expireDue().finally(() => (this.running = undefined));
    return this.running;
  }
}
