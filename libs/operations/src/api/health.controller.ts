import { Controller, Get, HttpCode, Inject } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';
import { BlobStore } from '@gensvc/blob-store';
import { EventStore, ReadStore, SubscriptionEngine } from '@gensvc/event-sourcing';
import { Public } from '@gensvc/http';
import { countEventsAfter } from '../infrastructure/metrics';

/** Most events the projections may be behind while the service still reports ready. */
export const READY_MAX_LAG = 1000;

/**
 * Liveness and readiness for orchestrators (outside /v1: not part of the public API).
 * Ready means: the three stores answer, the projections caught up once at start (the
 * engine started) and are now at most READY_MAX_LAG events behind the event store.
 */
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
    if (!this.engine.health().started) throw new AppError('SERVICE_UNAVAILABLE', 'projections are catching up after start');
    const lag = await countEventsAfter(this.events, this.engine.projectedPosition(), READY_MAX_LAG + 1);
    if (lag > READY_MAX_LAG) throw new AppError('SERVICE_UNAVAILABLE', `projections are catching up (more than ${READY_MAX_LAG} events behind)`);
    return { status: 'ready', projection_lag: lag };
  }
}
