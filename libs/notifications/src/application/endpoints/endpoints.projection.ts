import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import { WEBHOOK_ENDPOINT_EVENT_TYPES, type WebhookEndpointEvent } from '../../domain/endpoints';
import { DELIVERY_OUTCOME_EVENT_TYPES, type DeliveryEvent } from '../../domain/delivery';

export const WEBHOOK_ENDPOINTS = 'webhook_endpoints';

/** One endpoint as lists show it (no secret), plus its delivery health. */
export interface EndpointDoc extends Record<string, unknown> {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled' | 'deleted';
  disabled_reason: string | null;
  created_at: string;
  /** First failed attempt since the last delivered one (null: the last attempt succeeded, or none yet). */
  failing_since: string | null;
}

const endpoints = documentProjection<EndpointDoc, WebhookEndpointEvent | DeliveryEvent>({
  name: 'notifications.endpoints',
  collection: WEBHOOK_ENDPOINTS,
  handles: [...WEBHOOK_ENDPOINT_EVENT_TYPES, ...DELIVERY_OUTCOME_EVENT_TYPES],
  indexes: [{ keys: { account_id: 1, created_at: -1 } }],
  documentId: (e) => e.data.endpoint_id,
  evolve(doc, e) {
    switch (e.type) {
      case 'WebhookEndpointCreated':
        return {
          id: e.data.endpoint_id,
          account_id: e.data.account_id,
          url: e.data.url,
          events: [...e.data.events],
          description: e.data.description,
          status: 'enabled',
          disabled_reason: null,
          created_at: e.data.created_at,
          failing_since: null,
        };
      case 'WebhookEndpointSecretRotated':
        return doc;
      case 'WebhookEndpointDisabled':
        return doc && doc.status === 'enabled' ? { ...doc, status: 'disabled', disabled_reason: e.data.reason } : doc;
      case 'WebhookEndpointDeleted':
        return doc && { ...doc, status: 'deleted' };
      case 'WebhookDeliveryAttemptFailed':
        return doc && !e.data.interrupted ? { ...doc, failing_since: doc.failing_since ?? e.data.attempt.at } : doc;
      case 'WebhookDeliverySucceeded':
        return doc && { ...doc, failing_since: null };
      default:
        return doc;
    }
  },
});

@Injectable()
@AsProjection()
export class WebhookEndpointsProjection extends ProjectionProvider {
  protected readonly inner = endpoints;
}
