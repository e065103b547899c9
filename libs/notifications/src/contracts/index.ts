/**
 * The notifications context's contracts (Nest-free). No other library imports this context
 * (it only reacts to their events); apps and tests may use these names.
 */
export { WEBHOOK_EVENT_TYPES, WEBHOOK_ENDPOINT_EVENT_TYPES, type WebhookEventType, type WebhookEndpointEvent } from '../domain/endpoints';
export { DELIVERY_EVENT_TYPES, type DeliveryEvent } from '../domain/delivery';
