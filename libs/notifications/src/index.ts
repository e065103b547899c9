export * from './contracts';
export { NotificationsModule } from './notifications.module';
export { NotificationSettings, parseRetrySchedule } from './notification-settings';
/** Name resolution of deliveries; tests replace `resolve` on the instance. */
export { WebhookNetwork } from './infrastructure/webhook-network';
/** The delivery runner (`busy`: work in flight, for tests and the benchmark). */
export { DeliveryRunner } from './application/deliveries/delivery-runner';
/** Webhook metrics in a registry of their own; the API serves them with the service's metrics. */
export { DeliveryMetrics } from './application/deliveries/delivery-metrics';
