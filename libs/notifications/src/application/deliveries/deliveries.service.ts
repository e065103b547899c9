import { Injectable } from '@nestjs/common';
import { AppError, Clock, streamName } from '@gensvc/kernel';
import { EventStore, ReadStore, SubscriptionEngine, caughtUp, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { DELIVERY_STREAM, deliveryDecider } from '../../domain/delivery';
import { isDeliveryId } from '../../domain/endpoints';
import { EndpointsService } from '../endpoints/endpoints.service';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from './deliveries.projection';
import { DeliveryRunner } from './delivery-runner';

/** The delivery object of CONTRACT §10. */
export interface DeliveryView {
  id: string;
  message_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'retrying' | 'failed';
  attempts: { at: string; status_code: number | null; duration_ms: number; error: string | null }[];
  next_attempt_at: string | null;
  created_at: string;
}

export interface DeliveryPage {
  data: DeliveryView[];
  page: number;
  limit: number;
  has_more: boolean;
}

const view = (d: DeliveryDoc): DeliveryView => ({
  id: d.id,
  message_id: d.message_id,
  event_type: d.event_type,
  status: d.status,
  attempts: d.attempts.map((a) => ({ at: a.at, status_code: a.status_code, duration_ms: a.duration_ms, error: a.error })),
  next_attempt_at: d.next_attempt_at,
  created_at: d.created_at,
});

/** The deliveries of one endpoint: the list (read model) and a retry on request. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly clock: Clock,
    private readonly endpoints: EndpointsService,
    private readonly runner: DeliveryRunner,
  ) {}

  async list(accountId: string, endpointId: string, query: { page: number; limit: number }): Promise<DeliveryPage> {
    await this.endpoints.get(accountId, endpointId);
    const docs = await this.readStore
      .collection<DeliveryDoc & { _id: string }>(WEBHOOK_DELIVERIES)
      .find({ endpoint_id: endpointId, account_id: accountId }, { sort: { created_at: -1, _id: -1 }, skip: (query.page - 1) * query.limit, limit: query.limit + 1 });
    return { data: docs.slice(0, query.limit).map(view), page: query.page, limit: query.limit, has_more: docs.length > query.limit };
  }

  /** Queues the same message (same webhook-id) again; 202. */
  async retry(accountId: string, endpointId: string, deliveryId: string): Promise<{ id: string; status: 'pending' }> {
    const endpoint = await this.endpoints.get(accountId, endpointId);
    const stream = streamName(DELIVERY_STREAM, deliveryId);
    const { state } = isDeliveryId(deliveryId) ? await loadAggregate(this.events, stream, deliveryDecider) : { state: { status: 'none' as const } };
    if (state.status === 'none' || state.accountId !== accountId || state.endpointId !== endpointId) throw new AppError('NOT_FOUND', `delivery ${deliveryId} not found`);
    if (endpoint.status !== 'enabled') throw new AppError('WEBHOOK_ENDPOINT_DISABLED', `webhook endpoint ${endpointId} is disabled; nothing is sent to it`);
    const result = await handleCommand(this.events, stream, deliveryDecider, { type: 'RequestRetry', data: {}, metadata: { now: this.clock.now() } });
    // The retry is stored and sent whether or not the list shows it yet (ProjectionLagError).
    await caughtUp(this.engine.waitFor(result.position));
    this.runner.schedule(deliveryId, 0);
    return { id: deliveryId, status: 'pending' };
  }
}
