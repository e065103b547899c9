import { Injectable } from '@nestjs/common';
import { AsReactor, EventStore, handleCommand, type Reactor } from '@gensvc/event-sourcing';
import { Clock, streamName, type RecordedEvent } from '@gensvc/kernel';
import { TASK_STREAM } from '@gensvc/tasks/contracts';
import { DELIVERY_STREAM, deliveryDecider } from '../../domain/delivery';
import { liveEndpoints, subscribes } from '../../domain/endpoints';
import { DeliveryMetrics } from '../deliveries/delivery-metrics';
import { EndpointsService } from '../endpoints/endpoints.service';
import { accountOf, deliveryIdFor, messageBody, messageContent, messageIdFor, SOURCE_EVENT_TYPES } from './message-content';

/**
 * Turns stored task, upload, asset and voice events into messages for the account's
 * enabled endpoints that subscribe to their type, as the endpoints stood when the event was
 * stored (an endpoint created later does not get it; one deleted before does not either).
 * Idempotent: ids derive from the source event, and queuing a delivery twice adds nothing.
 */
@Injectable()
@AsReactor()
export class MessagesReactor implements Reactor {
  readonly name = 'notifications.messages';
  readonly handles = SOURCE_EVENT_TYPES;

  constructor(
    private readonly events: EventStore,
    private readonly endpoints: EndpointsService,
    private readonly clock: Clock,
    private readonly metrics: DeliveryMetrics,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    const accountId = accountOf(event);
    if (!accountId) return;
    const state = await this.endpoints.load(accountId, event.position);
    const candidates = liveEndpoints(state).filter((e) => e.status === 'enabled');
    if (!candidates.length) return;
    let taskStream: RecordedEvent[] | undefined;
    if (event.type.startsWith('Task')) {
      const taskId = (event.data as { task_id: string }).task_id;
      taskStream = (await this.events.readStream(streamName(TASK_STREAM, taskId))).filter((e) => e.revision <= event.revision);
    }
    const content = messageContent(event, taskStream);
    if (!content) return;
    const targets = candidates.filter((e) => subscribes(e, content.type));
    if (!targets.length) return;
    const body = messageBody(content, event.metadata.occurredAt);
    const messageId = messageIdFor(event.id);
    for (const endpoint of targets) {
      const deliveryId = deliveryIdFor(event.id, endpoint.id);
      const result = await handleCommand(this.events, streamName(DELIVERY_STREAM, deliveryId), deliveryDecider, { type: 'QueueDelivery', data: { delivery_id: deliveryId, message_id: messageId, endpoint_id: endpoint.id, account_id: accountId, event_type: content.type, source_event_id: event.id, body }, metadata: { now: this.clock.now() } });
      if (result.events.length) this.metrics.queued(content.type);
    }
  }
}
