export { NotificationsModule } from './notifications.module';
export { NotificationSettings } from './notification-settings';
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './domain/endpoints';
