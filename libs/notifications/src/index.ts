export { NotificationsModule } from './notifications.module';
export { NotificationSettings, parseRetrySchedule } from './notification-settings';
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './domain/endpoints';
/** Name resolution of deliveries; tests replace `resolve` on the instance. */
export { WebhookNetwork } from './infrastructure/webhook-network';
/** The delivery runner (`busy`: work in flight, for tests and the benchmark). */
export { DeliveryRunner } from './application/deliveries/delivery-runner';
