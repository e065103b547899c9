import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import { apiStatus, DELIVERY_EVENT_TYPES, type Attempt, type DeliveryEvent, type DeliveryStatus } from '../../domain/delivery';

export const WEBHOOK_DELIVERIES = 'webhook_deliveries';

/** One delivery as lists show it (the message body stays in the stream). */
export interface DeliveryDoc extends Record<string, unknown> {
  id: string;
  account_id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  /** The state machine's status (with `attempting`). */
  state: DeliveryStatus;
  status: 'pending' | 'delivered' | 'retrying' | 'failed';
  attempts: Attempt[];
  next_attempt_at: string | null;
  created_at: string;
}

const deliveries = documentProjection<DeliveryDoc, DeliveryEvent>({
  name: 'notifications.deliveries',
  collection: WEBHOOK_DELIVERIES,
  handles: DELIVERY_EVENT_TYPES,
  indexes: [{ keys: { endpoint_id: 1, created_at: -1 } }, { keys: { state: 1 } }],
  documentId: (e) => e.data.delivery_id,
  evolve(doc, e) {
    const next = (d: DeliveryDoc, state: DeliveryStatus, patch: Partial<DeliveryDoc> = {}): DeliveryDoc => {
      const merged = { ...d, ...patch, state };
      return { ...merged, status: apiStatus(state, merged.attempts.length) };
    };
    if (e.type === 'WebhookDeliveryQueued') {
      if (doc) return doc;
      return {
        id: e.data.delivery_id,
        account_id: e.data.account_id,
        endpoint_id: e.data.endpoint_id,
        message_id: e.data.message_id,
        event_type: e.data.event_type,
        state: 'pending',
        status: 'pending',
        attempts: [],
        next_attempt_at: e.data.created_at,
        created_at: e.data.created_at,
      };
    }
    if (!doc) return null;
    switch (e.type) {
      case 'WebhookDeliveryAttemptStarted':
        return next(doc, 'attempting');
      case 'WebhookDeliveryAttemptFailed':
        return next(doc, e.data.next_attempt_at === null ? 'failed' : 'retrying', { attempts: [...doc.attempts, e.data.attempt], next_attempt_at: e.data.next_attempt_at });
      case 'WebhookDeliverySucceeded':
        return next(doc, 'delivered', { attempts: [...doc.attempts, e.data.attempt], next_attempt_at: null });
      case 'WebhookDeliveryAbandoned':
        return next(doc, 'failed', { next_attempt_at: null });
      case 'WebhookDeliveryRetryRequested':
        return next(doc, 'pending', { next_attempt_at: e.data.at });
      default:
        return doc;
    }
  },
});

@Injectable()
@AsProjection()
export class WebhookDeliveriesProjection extends ProjectionProvider {
  protected readonly inner = deliveries;
}
