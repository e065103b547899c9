import { Controller, Get, HttpCode, Inject } from '@nestjs/common';
import { AppError, BlobStore, EventStore, Public, ReadStore, SubscriptionEngine } from '@gensvc/shared';

/** Liveness and readiness for orchestrators (outside /v1: not part of the public API). */
@Controller('health')
export class HealthController {
  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    @Inject(ReadStore) private readonly readStore: ReadStore,
    @Inject(BlobStore) private readonly blobs: BlobStore,
    private readonly engine: SubscriptionEngine,
  ) {}

  @Get('live')
  @Public()
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @HttpCode(200)
  async ready() {
    try {
      await Promise.all([this.events.ping(), this.readStore.ping(), this.blobs.ping()]);
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'a store does not answer');
    }
    const head = await this.events.headPosition();
    const projected = this.engine.projectedPosition();
    const lag = Number(head - projected);
    if (!this.engine.health().started || lag > 1000) throw new AppError('SERVICE_UNAVAILABLE', `projections are catching up (${lag} events behind)`);
    return { status: 'ready', projection_lag: Math.max(0, lag) };
  }
}
