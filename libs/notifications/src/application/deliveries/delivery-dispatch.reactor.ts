import { Injectable } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { type RecordedEvent } from '@gensvc/kernel';
import { DeliveryRunner } from './delivery-runner';

/**
 * Hands stored delivery events to the runner: a queued or re-requested delivery to send, a
 * disabled or deleted endpoint whose open deliveries end. Covers events of other processes
 * and redelivery after a restart; each step re-reads the delivery's stream, so a repeat never
 * sends twice what was delivered.
 */
@Injectable()
@AsReactor()
export class DeliveryDispatchReactor implements Reactor {
  readonly name = 'notifications.dispatch';
  readonly handles = ['WebhookDeliveryQueued', 'WebhookDeliveryRetryRequested', 'WebhookEndpointDisabled', 'WebhookEndpointDeleted'];

  constructor(private readonly runner: DeliveryRunner) {}

  async handle(event: RecordedEvent): Promise<void> {
    const data = event.data as { delivery_id?: string; endpoint_id?: string };
    if (event.type.startsWith('WebhookDelivery')) {
      if (data.delivery_id) this.runner.schedule(data.delivery_id, 0);
    } else if (data.endpoint_id && this.runner.active) await this.runner.scheduleEndpoint(data.endpoint_id);
  }
}
